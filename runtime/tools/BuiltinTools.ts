import { Effect } from "effect"
import { Mailer } from "../../platform/Mailer.js"
import { KnowledgeSearch } from "../agents/KnowledgeSearch.js"
import { ToolFailure, type ToolInvocation, toolSource, type ToolSpec } from "./Tools.js"

const knowledgeSearch: ToolSpec = {
  id: "builtin.knowledge_search",
  source: "builtin",
  description: "Searches the knowledge bases attached to this step and returns the best matching passages.",
  parameters: {
    type: "object",
    required: ["query"],
    additionalProperties: false,
    properties: {
      query: { type: "string", minLength: 1 },
      top_k: { type: "integer", minimum: 1, maximum: 20 }
    }
  },
  sideEffects: false
}

const sendEmail: ToolSpec = {
  id: "builtin.send_email",
  source: "builtin",
  description: "Sends a plain-text email.",
  parameters: {
    type: "object",
    required: ["to", "subject", "body"],
    additionalProperties: false,
    properties: {
      to: { type: "string", pattern: "^[^@\\s]+@[^@\\s]+$" },
      subject: { type: "string", minLength: 1 },
      body: { type: "string" }
    }
  },
  configSchema: {
    type: "object",
    additionalProperties: false,
    properties: { allowed_domains: { type: "array", items: { type: "string" } } }
  },
  sideEffects: true
}

export const builtinTools: ReadonlyArray<ToolSpec> = [knowledgeSearch, sendEmail]

/** The platform's own tools, offered to every tenant under `builtin.*` action ids. */
export const BuiltinToolsLive = toolSource(Effect.gen(function*() {
  const knowledge = yield* KnowledgeSearch
  const mailer = yield* Mailer

  const invoke = (spec: ToolSpec, call: ToolInvocation) =>
    Effect.gen(function*() {
      const args = call.arguments
      switch (spec.id) {
        case knowledgeSearch.id: {
          const hits = yield* knowledge.search(call.tenantId, call.knowledgeBaseIds, String(args.query), {
            topK: typeof args.top_k === "number" ? args.top_k : 5,
            minScore: 0
          })
          return { results: hits.map((h) => ({ document_id: h.document_id, title: h.title, snippet: h.snippet, score: h.score })) }
        }
        case sendEmail.id: {
          const to = String(args.to)
          const allowed = call.config.allowed_domains
          if (Array.isArray(allowed) && !allowed.some((d) => to.toLowerCase().endsWith(`@${String(d).toLowerCase()}`))) {
            return yield* new ToolFailure({ message: `Sending to ${to} is not allowed by this step's tool_config` })
          }
          yield* mailer.send({ to, subject: String(args.subject), text: String(args.body) })
          return { sent: true, to }
        }
        default:
          return yield* new ToolFailure({ message: `Unknown built-in tool '${spec.id}'` })
      }
    })

  return {
    name: "builtin",
    actions: (_tenantId, ids) => Effect.succeed(builtinTools.filter((t) => ids.includes(t.id))),
    mcpTools: () => Effect.succeed([]),
    invoke
  }
}))

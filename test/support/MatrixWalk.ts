import { Effect } from "effect"
import { answerOf, chatWorkflow, newSession, send } from "./Chat.js"
import { createMember } from "./Fixtures.js"
import { http } from "./Http.js"
import { publishedWorkflow } from "./RunPlatform.js"
import { startRun, waitForStatus } from "./Runs.js"
import { ScriptedModel } from "./ScriptedModel.js"
import { simpleDag } from "./Workflows.js"

/** Helpers of the matrices generated from the OpenAPI document (tenancy and roles). */
export const SECRET_FIELDS = /^(password|password_hash|key_hash|secret_hash|sealed|sealed_credentials|totp_secret|refresh_token_hash|api_token|client_secret)$/
/**
 * Routes meant to answer other tenants: the public app and the signed webhook delivery check their
 * own credential, and templates are the platform's, shared by every workspace.
 */
export const PUBLIC = [/^\/api\/v1\/workflow\/public\//, /^\/api\/v1\/workflow\/webhooks\/\{webhook_id\}$/, /^\/api\/v1\/workflow\/templates\//]
export const FIXED: Record<string, string> = { version: "1", versionNumber: "1", slide: "1", name: "x", type: "pdf" }

export interface Op {
  readonly method: string
  readonly path: string
}

export const json = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The ids an answer lists: `id` at the top, and of the records in its arrays. */
export const idsIn = (body: unknown): Array<string> => {
  if (typeof body !== "object" || body === null) return []
  const records = [body, ...Object.values(body).flatMap((v) => (Array.isArray(v) ? v : []))]
  return records.flatMap((r) => {
    const id = typeof r === "object" && r !== null ? (r as Record<string, unknown>).id ?? (r as Record<string, unknown>).group_id : undefined
    return typeof id === "string" || typeof id === "number" ? [String(id)] : []
  })
}

/** The secret fields in an answer, with their paths. */
export const secretsIn = (value: unknown, at = ""): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((v, i) => secretsIn(v, `${at}[${i}]`))
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([k, v]) => [...(SECRET_FIELDS.test(k) && v !== null ? [`${at}.${k}`] : []), ...secretsIn(v, `${at}.${k}`)])
}

/** Tenant A's resources: a published AI Employee with a run, a chat, groups, keys, knowledge, integrations, documents, tickets. */
export const seedTenant = (token: string, tenantId: string) =>
  Effect.gen(function*() {
    const model = yield* ScriptedModel
    model.setScript(() => ({ text: "Hello there." }))
    yield* http("PATCH", `/api/v1/auth/tenants/${tenantId}/settings`, { token, body: { user_groups_enabled: true, ticketing_enabled: true } })
    const workflow = yield* publishedWorkflow(token, simpleDag())
    const run = yield* startRun(token, workflow, {})
    yield* waitForStatus(token, run.body.id, ["completed", "failed"])
    const chat = yield* chatWorkflow(token)
    const session = yield* newSession(token, chat)
    const sent = yield* send(token, session.id, { content: "Hi" })
    yield* answerOf(token, session.id, sent.body.assistant_message_id)
    const group = (yield* http("POST", "/api/v1/auth/groups", { token, body: { name: "A team" } })).body.id as string
    const member = yield* createMember(token, "user", { tenantId })
    yield* http("POST", `/api/v1/auth/groups/${group}/members`, { token, body: { user_id: member.id } })
    yield* http("POST", `/api/v1/hcm-ticketing/groups/${group}/queue`, { token, body: { name: "A desk" } })
    yield* http("POST", `/api/v1/hcm-ticketing/groups/${group}/tickets`, { token, body: { title: "A ticket" } })
    const requests: Array<[string, string, unknown]> = [
      ["POST", "/api/v1/auth/api-keys", { name: "A key" }],
      ["POST", "/api/v1/workflow/voice/trees", { name: "A tree", content: {} }],
      ["POST", "/api/v1/ingestion/knowledge-bases", { name: "A knowledge" }],
      ["POST", `/api/v1/workflow/workflows/${workflow}/webhooks`, { name: "A hook" }],
      ["PUT", `/api/v1/workflow/workflows/${workflow}/schedule`, { cron: "0 9 * * *", timezone: "UTC" }],
      ["POST", "/api/v1/docgen/documents", { title: "A document", content_html: "<p>A</p>" }],
      ["POST", "/api/v1/eval/rubrics", {
        workflow_id: workflow,
        name: "A rubric",
        rubric_instructions: "Score it",
        rubric_schema: { type: "object", properties: { score: { type: "number" } } }
      }]
    ]
    for (const [method, path, body] of requests) yield* http(method, path, { token, body })
    const entry = yield* http("POST", "/api/v1/integrations/catalog", { token, body: { name: "a-entry", category: "crm", functions: [] } })
    const install = yield* http("POST", "/api/v1/integrations/integrations", { token, body: { catalog_id: entry.body.id } })
    yield* http("PUT", `/api/v1/integrations/integrations/${install.body.id}/credentials`, {
      token,
      body: { capability: "agent_tool", credentials: { api_key: "a-secret-value" } }
    })
  })

/** The operations of the OpenAPI document. */
export const operationsOf = (doc: { paths: Record<string, Record<string, unknown>> }): Array<Op> =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).filter((m) => ["get", "post", "put", "patch", "delete"].includes(m)).map((m) => ({ method: m.toUpperCase(), path }))
  )

/**
 * Concrete paths of the document's routes with one tenant's real ids, read with `token`: a
 * route's `{param}` takes the ids its parent listing answers (the first of them), else other ids
 * of the same tenant (`everything`); `look` sees every answer read on the way.
 */
export const makeWalker = (token: string, look: (path: string, text: string) => void) => {
  const listings = new Map<string, Array<string>>()
  let everything = new Set<string>()
  const listing = (concrete: string) =>
    Effect.gen(function*() {
      const known = listings.get(concrete)
      if (known !== undefined) return known
      const r = yield* http("GET", concrete, { token })
      look(concrete, r.text)
      const ids = r.status === 200 ? [...new Set(idsIn(r.body))].slice(0, 4) : []
      listings.set(concrete, ids)
      return ids
    })
  const concretes = (template: string) =>
    Effect.gen(function*() {
      let paths = [""]
      for (const part of template.split(/(\{[^}]+\})/).filter((p) => p !== "")) {
        const param = /^\{([^}]+)\}$/.exec(part)?.[1]
        if (param === undefined) {
          paths = paths.map((p) => p + part)
          continue
        }
        const next: Array<string> = []
        for (const p of paths) {
          const parent = p.replace(/\/$/, "").replace(/^\/api\/v1\/hcm-ticketing\/groups$/, "/api/v1/auth/groups")
          const listed = FIXED[param] !== undefined ? [FIXED[param]] : yield* listing(parent)
          // A parameter without a listing of its own takes other ids of the tenant.
          const ids = listed.length > 0 ? listed : [...everything].sort(() => Math.random() - 0.5).slice(0, 2)
          next.push(...ids.slice(0, 2).map((id) => p + encodeURIComponent(id)))
        }
        paths = next.slice(0, 3)
      }
      return paths
    })
  /** Reads every listing of the document (GET routes without parameters): the tenant's ids. */
  const listAll = (ops: ReadonlyArray<Op>) =>
    Effect.gen(function*() {
      listings.clear()
      for (const op of ops.filter((o) => o.method === "GET" && !o.path.includes("{"))) yield* listing(op.path)
      return new Set([...listings.values()].flat())
    })
  return { concretes, listAll, know: (ids: Iterable<string>) => void (everything = new Set(ids)) }
}

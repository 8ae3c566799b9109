import { SqlClient } from "@effect/sql"
import { Context, Effect, FiberSet, Layer, Option, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { ChatModel } from "../../runtime/models/ChatModel.js"
import { ModelRegistry } from "../../runtime/models/ModelRegistry.js"
import { TenantId, WorkflowId } from "../../schemas/Ids.js"
import { AiEmployees } from "../ports/AiEmployees.js"
import { SessionsRepo } from "./SessionsRepo.js"

export const TITLE_INSTRUCTIONS = "Write a short title (at most six words) that summarizes this conversation. Reply with the title only, without quotes."

/** A model reply made fit for a title: one line, no quotes or trailing period, at most 80 characters. */
export const cleanTitle = (text: string) =>
  text.split("\n").map((l) => l.trim()).find((l) => l !== "")?.replace(/^(title:\s*)/i, "").replace(/^["'“”]+|["'“”.]+$/g, "").trim()
    .slice(0, 80) ?? ""

/**
 * Session titles: after the first exchange a model summarizes it, in the background (the run's
 * end does not wait for it). A title the owner set meanwhile wins; a failed attempt leaves the
 * title empty and the next exchange tries again.
 */
export class Titles extends Context.Tag("Titles")<Titles, {
  readonly request: (sessionId: string) => Effect.Effect<void>
}>() {
  static readonly layer = Layer.scoped(
    Titles,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sessions = yield* SessionsRepo
      const aiEmployees = yield* AiEmployees
      const registry = yield* ModelRegistry
      const model = yield* ChatModel
      const fibers = yield* FiberSet.make()

      const generate = (sessionId: string) =>
        Effect.gen(function*() {
          const [s] = yield* sql`
            SELECT tenant_id, workflow_id, title_source FROM chat_sessions WHERE id = ${sessionId}`.pipe(
            decodeRows("chat_sessions", Schema.Struct({ tenant_id: TenantId, workflow_id: WorkflowId, title_source: Schema.String }))
          )
          if (s === undefined || s.title_source !== "empty") return
          const workflowConfig = yield* aiEmployees.configOf(s.tenant_id, s.workflow_id)
          if (Option.isNone(workflowConfig)) return
          const turns = yield* sql`SELECT role, content FROM chat_messages
            WHERE session_id = ${sessionId} AND NOT is_dry_run AND (role = 'user' OR status = 'completed') ORDER BY turn_seq, role = 'assistant', seq LIMIT 2`
            .pipe(decodeRows("chat_messages", Schema.Struct({ role: Schema.String, content: Schema.String })))
          if (turns.length === 0) return
          const config = workflowConfig.value
          const chosen = yield* registry.choose(s.tenant_id, { ...config, optimization_priority: "CHEAPEST" }, undefined)
          if (chosen === undefined) return
          const conversation = turns.map((t) => `${t.role === "user" ? "User" : "Assistant"}: ${t.content.slice(0, 2000)}`).join("\n")
          const reply = yield* model.complete({
            model: chosen.model,
            provider: chosen.provider,
            messages: [{ role: "system", content: TITLE_INSTRUCTIONS }, { role: "user", content: conversation }]
          })
          const title = cleanTitle(reply.text)
          if (title !== "") yield* sessions.setGeneratedTitle(sessionId, title)
        }).pipe(
          Effect.catchAllCause((cause) => Effect.logWarning("session title not generated", cause)),
          Effect.withSpan("Titles.generate", { attributes: { "chat.session_id": sessionId } })
        )

      return { request: (sessionId) => FiberSet.run(fibers, generate(sessionId)).pipe(Effect.asVoid) }
    })
  )
}

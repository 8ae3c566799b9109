import { assert } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { http } from "./Http.js"
import { eventually } from "./RunPlatform.js"
import type { ChatCompletionRequest } from "./ScriptedModel.js"
import { TestPlatform } from "./TestPlatform.js"
import { createWorkflow, publish, saveDag } from "./Workflows.js"

export const TITLE_PREFIX = "Write a short title"

export const isTitleRequest = (r: ChatCompletionRequest) => (r.messages[0]?.content ?? "").startsWith(TITLE_PREFIX)

export const chatDag = (prompt = "You are a helpful assistant.") => ({
  input_schema: { type: "object", properties: { message: { type: "string" } } },
  nodes: [{
    id: "answer",
    type: "agent",
    name: "Answer",
    agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: prompt }
  }],
  edges: []
})

/** A published chat AI Employee with this DAG. */
export const chatWorkflow = (token: string, dag: unknown = chatDag(), body: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const w = yield* createWorkflow(token, { name: "Concierge", interaction_type: "chat", ...body })
    const saved = yield* saveDag(token, w.id, dag)
    assert.strictEqual(saved.status, 200, saved.text)
    const p = yield* publish(token, w.id)
    assert.strictEqual(p.status, 200, p.text)
    return w.id as string
  })

export const newSession = (token: string, workflowId: string, input_params?: Record<string, unknown>) =>
  http("POST", "/api/v1/chat/sessions", { token, body: { workflow_id: workflowId, ...(input_params ? { input_params } : {}) } }).pipe(
    Effect.flatMap((r) => (r.status === 201 ? Effect.succeed(r.body as { id: string; title: string }) : Effect.dieMessage(r.text)))
  )

export const send = (token: string, sessionId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  http("POST", `/api/v1/chat/sessions/${sessionId}/messages`, { token, body, headers })

export interface Message {
  readonly id: string
  readonly role: "user" | "assistant"
  readonly content: string
  readonly status: string
  readonly run_id?: string
  readonly reply_to?: string
  readonly assistant_message_id?: string
  readonly is_dry_run: boolean
  readonly sources: ReadonlyArray<{ document_id: string; title?: string }>
  readonly response_buttons: ReadonlyArray<{ label: string; value: string }>
  readonly error?: string
  readonly feedback?: { sentiment: string; category?: string; feedback_text?: string; run_id?: string }
}

export const messagesOf = (token: string, sessionId: string, credential: "token" | "apiKey" = "token") =>
  http("GET", `/api/v1/chat/sessions/${sessionId}/messages`, credential === "token" ? { token } : { apiKey: token }).pipe(
    Effect.map((r) => (r.body?.items ?? []) as Array<Message>)
  )

/** Waits until the session holds the assistant message with this id. */
export const answerOf = (token: string, sessionId: string, assistantId: string, credential: "token" | "apiKey" = "token") =>
  eventually(
    messagesOf(token, sessionId, credential).pipe(Effect.map((items) => items.find((m) => m.id === assistantId))),
    `assistant message ${assistantId}`
  )

export const apiKey = (token: string) =>
  http("POST", "/api/v1/auth/api-keys", { token, body: { name: `chat-${Date.now()}` } }).pipe(
    Effect.flatMap((r) => (r.status === 201 ? Effect.succeed(r.body.key as string) : Effect.dieMessage(r.text)))
  )

export const setTenantFlag = (token: string, flags: Record<string, boolean>) =>
  Effect.gen(function*() {
    const me = yield* http("GET", "/api/v1/auth/users/me", { token })
    const r = yield* http("PATCH", `/api/v1/auth/tenants/${me.body.user.tenant_id}/settings`, { token, body: flags })
    assert.strictEqual(r.status, 200, r.text)
  })

/** Rows from the suite's database, for what the API does not show (sealed values, stored text). */
export const query = <A>(text: string, params: ReadonlyArray<unknown> = []) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: platform.databaseUrl })
      await client.connect()
      try {
        return (await client.query(text, [...params])).rows as Array<A>
      } finally {
        await client.end()
      }
    }))

export const conversationOf = (r: ChatCompletionRequest) => r.messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${m.content}`)

/**
 * Chat (part of `npm run bench`): messages answered per second when many sessions talk at once
 * (each sends its messages back to back, so all but the first queue behind each other), and
 * the send-to-answer latency of one conversation. One `respond` step, a model that answers at
 * once. BENCH_CHAT_SESSIONS (default 32) and BENCH_CHAT_MESSAGES (default 5 per session).
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { benchDatabase, benchPlatform, instantModel, json, percentile } from "./support.js"

const SESSIONS = Number(process.env.BENCH_CHAT_SESSIONS ?? 32)
const MESSAGES = Number(process.env.BENCH_CHAT_MESSAGES ?? 5)

export const chatBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const { base, token } = yield* benchPlatform({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "bench-model" })
  const sql = Context.get(yield* Layer.build(PgClient.layer({ url: Redacted.make(db.url) })), PgClient.PgClient)
  const w = yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name: "Bench chat", interaction_type: "chat" })
  const workflowId = w.id as string
  yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${workflowId}`, {
    dag_definition: {
      nodes: [{ id: "answer", type: "agent", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Help" } }],
      edges: []
    }
  })
  yield* json(base, token, "POST", `/api/v1/workflow/workflows/${workflowId}/publish`)
  const session = () => json(base, token, "POST", "/api/v1/chat/sessions", { workflow_id: workflowId }).pipe(Effect.map((s) => s.id as string))
  const answered = sql<{ n: number }>`SELECT count(*)::int AS n FROM chat_messages WHERE role = 'assistant'`.pipe(
    Effect.map((rows) => rows[0]?.n ?? 0)
  )

  // One conversation, one message at a time: send, then wait for the answer.
  const single = yield* session()
  const oneByOne: Array<number> = []
  for (let i = 0; i < 20; i++) {
    const before = yield* answered
    const t0 = performance.now()
    yield* json(base, token, "POST", `/api/v1/chat/sessions/${single}/messages`, { content: `question ${i}` })
    while ((yield* answered) <= before) yield* Effect.sleep("5 millis")
    oneByOne.push(performance.now() - t0)
  }
  oneByOne.sort((a, b) => a - b)

  const sessions = yield* Effect.forEach(Array.from({ length: SESSIONS }), () => session(), { concurrency: 8 })
  const baseline = yield* answered
  const started = performance.now()
  yield* Effect.forEach(
    sessions,
    (id) =>
      Effect.forEach(
        Array.from({ length: MESSAGES }, (_, i) => i),
        (i) => json(base, token, "POST", `/api/v1/chat/sessions/${id}/messages`, { content: `message ${i}` }),
        { discard: true }
      ),
    {
      concurrency: "unbounded",
      discard: true
    }
  )
  const total = SESSIONS * MESSAGES
  while ((yield* answered) - baseline < total) yield* Effect.sleep("20 millis")
  const wall = (performance.now() - started) / 1000
  const turns = yield* sql<{ ms: number }>`SELECT extract(epoch FROM a.completed_at - u.created_at) * 1000 AS ms
    FROM chat_messages u JOIN chat_messages a ON a.reply_to = u.id WHERE u.session_id <> ${single}`
  const latencies = turns.map((t) => Number(t.ms)).sort((a, b) => a - b)
  return [
    `chat, one conversation: send -> answer stored p50 ${percentile(oneByOne, 0.5).toFixed(1)} ms, p99 ${percentile(oneByOne, 0.99).toFixed(1)} ms`,
    `chat, ${SESSIONS} sessions x ${MESSAGES} messages sent back to back: ${(total / wall).toFixed(1)} messages answered/s;` +
    ` message -> answer (queueing included) p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms`
  ]
}))

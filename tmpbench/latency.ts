import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Logger, LogLevel, Redacted } from "effect"
import { benchDatabase, benchPlatform, instantModel } from "../bench/support.js"

const json = (base: string, token: string, method: string, path: string, body?: unknown) =>
  Effect.promise(() =>
    fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {})
    }).then((r) => r.json() as Promise<Record<string, unknown>>))
const node = (id: string) => ({ id, type: "agent", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: `Step ${id}` } })

const main = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const { base, token } = yield* benchPlatform({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "bench-model" })
  const sql = Context.get(yield* Layer.build(PgClient.layer({ url: Redacted.make(db.url) })), PgClient.PgClient)
  const w = yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name: "Bench" })
  yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${w.id}`, {
    dag_definition: { nodes: [node("a"), node("b"), node("c")], edges: [{ from: "a", to: "b" }, { from: "b", to: "c" }] }
  })
  yield* json(base, token, "POST", `/api/v1/workflow/workflows/${w.id}/publish`)
  for (let i = 0; i < 6; i++) {
    const r = yield* json(base, token, "POST", `/api/v1/workflow/workflows/${w.id}/run`, { input_params: {} })
    for (;;) {
      const [row] = yield* sql<{ status: string }>`SELECT status FROM runs WHERE id = ${r.id as string}`
      if (row?.status === "completed") break
      yield* Effect.sleep("5 millis")
    }
    const [run] = yield* sql<{ c: Date; s: Date; f: Date }>`SELECT created_at c, started_at s, finished_at f FROM runs WHERE id = ${r.id as string}`
    const steps = yield* sql<{ node_id: string; s: Date; f: Date }>`SELECT node_id, started_at s, finished_at f FROM run_steps WHERE run_id = ${r.id as string} ORDER BY position`
    const t0 = run!.c.getTime()
    console.log(`run ${i}: start +${run!.s.getTime() - t0} ` + steps.map((st) => `${st.node_id} ${st.s.getTime() - t0}-${st.f.getTime() - t0}`).join(" ") + ` done +${run!.f.getTime() - t0}`)
  }
}))
Effect.runPromise(main.pipe(Logger.withMinimumLogLevel(LogLevel.Warning))).catch((e) => { console.error(e); process.exitCode = 1 })

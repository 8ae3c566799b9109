/**
 * Triggers (part of `npm run bench`, BENCH_ONLY=triggers).
 * Webhooks: BENCH_WEBHOOKS (2,000) signed deliveries, each with its own X-Webhook-Id, 32 in
 * flight: deliveries accepted (202) per second, and runs started and completed per second.
 * Schedules: BENCH_SCHEDULES (1,000) AI Employees, each with an enabled schedule firing once a
 * minute at its own second (`<i % 60> * * * * *`), watched for BENCH_SCHEDULE_SECONDS (65):
 * lateness of each fire, claimed (run created) and started (run running), against
 * `scheduled_fire_time`.
 */
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import pg from "pg"
import { benchDatabase, benchPlatform, instantModel, json, percentile } from "./support.js"

const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 2_000)
const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 1_000)
const SCHEDULE_SECONDS = Number(process.env.BENCH_SCHEDULE_SECONDS ?? 65)

const dag = { nodes: [{ id: "a", type: "agent", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Tick" } }], edges: [] }

const ms = (values: Array<number>) => {
  values.sort((a, b) => a - b)
  return `p50 ${percentile(values, 0.5).toFixed(0)} ms, p99 ${percentile(values, 0.99).toFixed(0)} ms, max ${(values.at(-1) ?? 0).toFixed(0)} ms`
}

export const triggersBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const { base, token } = yield* benchPlatform({
    DATABASE_URL: db.url,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODELS: "bench-model",
    WEBHOOK_DELIVERIES_PER_MINUTE: "100000000"
  })
  const client = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
  const query = <A>(text: string, values: ReadonlyArray<unknown> = []) =>
    Effect.promise(() => client.query(text, [...values])).pipe(Effect.map((r) => r.rows as Array<A>))
  const publish = (name: string) =>
    Effect.gen(function*() {
      const w = yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name })
      yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${w.id}`, { dag_definition: dag })
      yield* json(base, token, "POST", `/api/v1/workflow/workflows/${w.id}/publish`)
      return w.id as string
    })

  // Webhooks
  const hooked = yield* publish("Hooked")
  const hook = yield* json(base, token, "POST", `/api/v1/workflow/workflows/${hooked}/webhooks`)
  const target = `${base}${new URL(hook.url as string).pathname}`
  const body = JSON.stringify({ event: "order.created", amount: 12 })
  const signature = `sha256=${createHmac("sha256", hook.secret as string).update(body).digest("hex")}`
  const t0 = performance.now()
  yield* Effect.forEach(
    Array.from({ length: WEBHOOKS }, (_, n) => n),
    (n) =>
      Effect.promise(() =>
        fetch(target, { method: "POST", body, headers: { "content-type": "application/json", "x-signature-256": signature, "x-webhook-id": `evt-${n}` } })
          .then(async (r) => {
            await r.text()
            if (r.status !== 202) throw new Error(`delivery ${n}: ${r.status}`)
          })
      ),
    { concurrency: 32, discard: true }
  )
  const accepted = (performance.now() - t0) / 1000
  while ((yield* query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE workflow_id = $1 AND status = 'completed'`, [hooked]))[0].n < WEBHOOKS) {
    yield* Effect.sleep("50 millis")
  }
  const completed = (performance.now() - t0) / 1000

  // Schedules
  const ids = yield* Effect.forEach(Array.from({ length: SCHEDULES }, (_, i) => i), (i) =>
    Effect.gen(function*() {
      const id = yield* publish(`Tick ${i}`)
      yield* json(base, token, "PUT", `/api/v1/workflow/workflows/${id}/schedule`, { cron: `${i % 60} * * * * *`, overlap_policy: "allow" })
      yield* json(base, token, "POST", `/api/v1/workflow/workflows/${id}/schedule/enable`)
      return id
    }), { concurrency: 16 })
  const watchFrom = new Date()
  yield* Effect.sleep(`${SCHEDULE_SECONDS} seconds`)
  yield* query(`UPDATE schedules SET enabled = false, next_fire_at = NULL`)
  yield* Effect.sleep("3 seconds")
  const fires = yield* query<{ claimed: number; started: number | null }>(
    `
    SELECT EXTRACT(EPOCH FROM (created_at - scheduled_fire_time)) * 1000 AS claimed,
           EXTRACT(EPOCH FROM (started_at - scheduled_fire_time)) * 1000 AS started
    FROM runs WHERE scheduled_fire_time >= $1 AND workflow_id = ANY($2::uuid[])`,
    [watchFrom, ids]
  )
  const distinct = (yield* query<{ n: number }>(`SELECT count(DISTINCT (workflow_id, scheduled_fire_time))::int AS n FROM runs
    WHERE scheduled_fire_time IS NOT NULL`))[0].n
  const all = (yield* query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE scheduled_fire_time IS NOT NULL`))[0].n
  return [
    `webhooks: ${WEBHOOKS} signed deliveries, 32 in flight`,
    `  RESULT_WEBHOOK_ACCEPTED ${(WEBHOOKS / accepted).toFixed(1)} deliveries/s answered 202 (${accepted.toFixed(1)} s)`,
    `  RESULT_WEBHOOK_COMPLETED ${(WEBHOOKS / completed).toFixed(1)} runs/s started and completed (${completed.toFixed(1)} s)`,
    `schedules: ${SCHEDULES} enabled, each firing once a minute at its own second, watched ${SCHEDULE_SECONDS} s: ${fires.length} fires (${all} scheduled runs, ${distinct} distinct fire times)`,
    `  RESULT_SCHEDULE_CLAIM_LATENESS ${ms(fires.map((f) => Number(f.claimed)))}`,
    `  RESULT_SCHEDULE_START_LATENESS ${ms(fires.flatMap((f) => f.started === null ? [] : [Number(f.started)]))}`
  ]
}))

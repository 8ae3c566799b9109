/**
 * Fairness across tenants (issue 37, BENCH_ONLY=fairness): tenant B starts one 3-node run every
 * second (BENCH_FAIR_PROBES, 10), first on an idle platform (after BENCH_FAIR_WARMUP runs, 20),
 * then while tenant A floods BENCH_FAIR_FLOOD (5000) runs over HTTP with 64 starts in flight
 * (BENCH_FAIR_FLOOD_PROBES probes, as many as idle unless set; "all": until A's last run has
 * started, so that the p99 is not simply the slowest of a few dozen).
 * B's start -> completed latency (from its run row) p50, p95 and p99 in both phases, and how many of
 * A's runs were waiting (pending) when B's runs ran. TENANT_MAX_RUNS_IN_FLIGHT is the platform's
 * default unless set; BENCH_FAIR_START_RATE sets A's max_run_starts_per_second (its refused
 * starts wait out their Retry-After plus up to a second of jitter, as a well-behaved client does).
 * OVERLOAD_LOOP_LAG_MS is passed to the platform (0: no fair shares under overload).
 * BENCH_FAIR_PROCESS=1 runs the platform and the model each in a process of its own, so that the
 * flood's 64 clients share neither's thread, as in production; BENCH_FAIR_RUNNERS=n splits it into
 * a gateway and n runner processes (their event bus PostgreSQL's LISTEN/NOTIFY). BENCH_FAIR_SPANS=1
 * adds the spans of B's slowest runs (from their traces) to where their time went; each slow run is
 * printed with its start time, to match against `bench/loop-stalls.cjs`'s record of the platform's
 * event loop (BENCH_CHILD_NODE_OPTIONS="-r $PWD/bench/loop-stalls.cjs" with BENCH_FAIR_PROCESS=1).
 */
import { Effect, Fiber } from "effect"
import pg from "pg"
import { BENCH_MARK } from "./PgTrace.js"
import { threeNodeDag } from "./runs.js"
import { benchDatabase, benchPlatform, childPlatform, instantModel, instantModelProcess, json, percentile, signIn } from "./support.js"
import { traceSpans } from "./TraceSpans.js"

const PROBES = Number(process.env.BENCH_FAIR_PROBES ?? 10)
/** "all": B probes for as long as A's flood is starting runs (the measure); a number: that many probes. */
const FLOOD_PROBES = process.env.BENCH_FAIR_FLOOD_PROBES ?? String(PROBES)
const WARMUP = Number(process.env.BENCH_FAIR_WARMUP ?? 20)
const FLOOD = Number(process.env.BENCH_FAIR_FLOOD ?? 5000)
const START_RATE = process.env.BENCH_FAIR_START_RATE || undefined
const RUNNERS = Number(process.env.BENCH_FAIR_RUNNERS ?? 0)
const OWN_PROCESS = process.env.BENCH_FAIR_PROCESS === "1" || RUNNERS > 0

export const fairnessBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = OWN_PROCESS ? yield* instantModelProcess : yield* instantModel
  const env = {
    DATABASE_URL: db.url,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODELS: "bench-model",
    ...(process.env.TENANT_MAX_RUNS_IN_FLIGHT !== undefined ? { TENANT_MAX_RUNS_IN_FLIGHT: process.env.TENANT_MAX_RUNS_IN_FLIGHT } : {}),
    ...(process.env.OVERLOAD_LOOP_LAG_MS !== undefined ? { OVERLOAD_LOOP_LAG_MS: process.env.OVERLOAD_LOOP_LAG_MS } : {})
  }
  const { base, token } = OWN_PROCESS ? yield* childPlatform(env, RUNNERS) : yield* benchPlatform(env)
  const publish = (as: string) =>
    Effect.gen(function*() {
      const w = yield* json(base, as, "POST", "/api/v1/workflow/workflows", { name: "Fair" })
      yield* json(base, as, "PATCH", `/api/v1/workflow/workflows/${w.id as string}`, { dag_definition: threeNodeDag })
      yield* json(base, as, "POST", `/api/v1/workflow/workflows/${w.id as string}/publish`)
      return w.id as string
    })
  const tenantB = yield* json(base, token, "POST", "/api/v1/auth/tenants", { name: "Tenant B", slug: "tenant-b" })
  yield* json(base, token, "POST", "/api/v1/auth/users", {
    email: "b@example.test",
    name: "B",
    password: "bench-password-b",
    role: "system_admin",
    tenant_id: tenantB.id
  })
  const tokenB = yield* signIn(base, "b@example.test", "bench-password-b")
  const flowA = yield* publish(token)
  if (START_RATE !== undefined) {
    const me = yield* json(base, token, "GET", "/api/v1/auth/users/me")
    yield* json(base, token, "PATCH", `/api/v1/auth/tenants/${(me.user as { tenant_id: string }).tenant_id}/settings`, {
      max_run_starts_per_second: Number(START_RATE)
    })
  }
  const flowB = yield* publish(tokenB)

  const poller = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => poller.connect()), () => Effect.promise(() => poller.end()))
  const query = <A>(text: string, values: ReadonlyArray<unknown> = []) =>
    Effect.promise(() => poller.query(`${BENCH_MARK} ${text}`, [...values])).pipe(Effect.map((r) => r.rows as Array<A>))

  /** Where a run's time went: start -> first node, each node, last node -> end (ms). */
  const timeline = (runId: string) =>
    query<{ at: Date; started: Date | null; finished: Date | null; node: string | null; ended: Date }>(
      `SELECT r.created_at AS at, s.started_at AS started, s.finished_at AS finished, s.node_id AS node, r.finished_at AS ended
        FROM runs r LEFT JOIN run_steps s ON s.run_id = r.id WHERE r.id = $1 ORDER BY s.position`,
      [runId]
    ).pipe(Effect.map((rows) => {
      const ms = (a: Date | null, b: Date | null) => (a === null || b === null ? "?" : String(b.getTime() - a.getTime()))
      const first = rows[0]
      if (first === undefined) return "?"
      const parts = [`start ${ms(first.at, first.started)}`]
      rows.forEach((r, i) => {
        parts.push(`${r.node ?? "?"} ${ms(r.started, r.finished)}`)
        const next = rows[i + 1]
        parts.push(next === undefined ? `end ${ms(r.finished, r.ended)}` : `gap ${ms(r.finished, next.started)}`)
      })
      return `${ms(first.at, first.ended)} ms @${first.at.toISOString()} = ${parts.join(" ")}`
    }))

  /** A run's spans from its trace, in start order: name@start+duration (ms from the run's root span's start). */
  const spans = (runId: string) =>
    traceSpans(base, tokenB, runId).pipe(Effect.map((all) => all.map((s) => `${s.name}@${(s.at / 1000).toFixed(0)}+${s.d.toFixed(0)}`).join(" ")))

  /** B's probes: one run a second, each followed to its end; latencies from the run rows, A's waiting runs at each start. */
  const probe = (more: (i: number) => boolean) =>
    Effect.gen(function*() {
      const latencies: Array<number> = []
      const runIds: Array<string> = []
      const waiting: Array<number> = []
      for (let i = 0; more(i); i++) {
        const began = Date.now()
        const run = yield* json(base, tokenB, "POST", `/api/v1/workflow/workflows/${flowB}/run`, { input_params: {} })
        const [pending] = yield* query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE status = 'pending' AND tenant_id <> $1`, [tenantB.id])
        waiting.push(pending?.n ?? 0)
        for (;;) {
          const [row] = yield* query<{ status: string; ms: number | null }>(
            `SELECT status, extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM runs WHERE id = $1`,
            [run.id]
          )
          if (row?.status === "completed" || row?.status === "failed") {
            latencies.push(Number(row.ms))
            runIds.push(run.id as string)
            break
          }
          yield* Effect.sleep("5 millis")
        }
        yield* Effect.sleep(`${Math.max(0, 1000 - (Date.now() - began))} millis`)
      }
      const sorted = [...latencies].sort((a, b) => a - b)
      const slowest = latencies.map((l, i) => ({ l, id: runIds[i] })).sort((a, b) => b.l - a.l).slice(0, 3)
      const parts = yield* Effect.forEach(slowest, ({ id }) =>
        Effect.zipWith(timeline(id), process.env.BENCH_FAIR_SPANS === "1" ? spans(id) : Effect.succeed(""), (t, s) => s === "" ? t : `${t} [${s}]`))
      return {
        p50: percentile(sorted, 0.5),
        p95: percentile(sorted, 0.95),
        p99: percentile(sorted, 0.99),
        count: sorted.length,
        waiting: Math.max(...waiting),
        inOrder: latencies.map((l) =>
          l.toFixed(0)
        ).join(" "),
        slowest: parts.join("; ")
      }
    })

  /** One of A's starts, refusals included (a 429 is an answer here, not a failure). */
  const startA = Effect.promise(() =>
    fetch(`${base}/api/v1/workflow/workflows/${flowA}/run`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ input_params: {} })
    }).then(async (r) => {
      await r.arrayBuffer()
      return { status: r.status, retryAfter: Number(r.headers.get("retry-after") ?? 1) }
    })
  )

  // B's runs warm the platform first, so that the idle figure is of a warm platform, not of its first runs.
  const ran = (as: string, flow: string) =>
    Effect.gen(function*() {
      const run = yield* json(base, as, "POST", `/api/v1/workflow/workflows/${flow}/run`, { input_params: {} })
      const ended = query<{ status: string }>(`SELECT status FROM runs WHERE id = $1`, [run.id]).pipe(
        Effect.map(([row]) => row?.status === "completed" || row?.status === "failed")
      )
      while (!(yield* ended)) yield* Effect.sleep("5 millis")
    })
  yield* Effect.forEach(Array.from({ length: WARMUP }), () => ran(tokenB, flowB), { discard: true })
  const idle = yield* probe((i) => i < PROBES)
  let started = 0
  let refused = 0
  const flood = yield* Effect.forEach(
    Array.from({ length: FLOOD }, (_, i) => i),
    () =>
      Effect.gen(function*() {
        for (;;) {
          const r = yield* startA
          if (r.status === 202) return void started++
          if (r.status !== 429) return yield* Effect.dieMessage(`tenant A's start: ${r.status}`)
          refused++
          // Retry-After, then up to a second of jitter, as well-behaved clients do (64 clients retrying in step would be a burst of their own).
          yield* Effect.sleep(`${r.retryAfter * 1000 + Math.floor(Math.random() * 1000)} millis`)
        }
      }),
    { concurrency: 64, discard: true }
  ).pipe(Effect.fork)
  yield* Effect.sleep("2 seconds")
  const flooded = yield* probe((i) => FLOOD_PROBES === "all" ? started < FLOOD : i < Number(FLOOD_PROBES))
  const startedDuring = started
  const refusedDuring = refused
  yield* Fiber.interrupt(flood)
  return [
    `fairness: tenant B starts a 3-node run every second, idle and while tenant A floods ${FLOOD} runs (64 starts in flight)`,
    `  idle (${idle.count} probes): B p50 ${idle.p50.toFixed(1)} ms, p95 ${idle.p95.toFixed(1)} ms, p99 ${idle.p99.toFixed(1)} ms`,
    `  RESULT_FAIRNESS flooded (${flooded.count} probes): B p50 ${flooded.p50.toFixed(1)} ms, p95 ${flooded.p95.toFixed(1)} ms, p99 ${
      flooded.p99.toFixed(1)
    } ms (${
      (flooded.p99 / idle.p99).toFixed(2)
    }x idle p99); A's runs started by then ${startedDuring} (${refusedDuring} starts refused), at most ${flooded.waiting} of them waiting in pending`,
    `  B's flooded runs in order (ms): ${flooded.inOrder}`,
    `  B's slowest flooded runs: ${flooded.slowest}`,
    `  B's slowest idle runs: ${idle.slowest}`
  ]
}))

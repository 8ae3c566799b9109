/**
 * The stack's own floor for the runs benchmark (BENCH_ONLY=stackfloor): the same work as
 * bench/runs.ts and the peers (a run row, three nodes each one model call and one step row, the
 * run's completion) on the mandated stack with nothing of the platform's: a one-endpoint HttpApi
 * server (`POST /runs`: insert the run row, hand the run to its entity, 202), an `@effect/cluster`
 * SingleRunner on PostgreSQL, a run entity whose handler does the three nodes, prepared statements
 * (as the platform's) on a plain `pg` pool (no `@effect/sql` per statement), no tracing, no
 * events, no authentication.
 *
 * What the platform's run costs above this is ours; what this costs above the plain-`pg` floor is
 * the stack's (HttpApi, cluster messages, the Effect runtime). BENCH_START=direct starts runs
 * without HTTP (the peers' START=direct). BENCH_RUNS, BENCH_WARMUP, BENCH_CONCURRENCY as in runs.ts.
 *
 * BENCH_FLOOR_JOURNAL=1 adds what issue 14 asks of any run kernel, and nothing else: the start reads
 * the AI Employee's active version; each node's one statement also writes its events
 * (step_started, token, step_completed; run_started and run_completed on the first and last)
 * and its three spans (node, agent, model call) as OTLP JSON rows; the last one ends the run. Still
 * five statements per run, no authentication, no live events, no state machine.
 *
 * BENCH_FLOOR_AUTH=1 (with or without the journal) adds the one read every authenticated request of
 * the API makes: the caller's user, membership and tenant, joined, by the ids of a verified token
 * (the platform keeps verified tokens, so a repeated token costs no signature check).
 *
 * BENCH_FLOOR_BATCHED=1 (with the journal) commits those writes as the peers' batched floor does
 * (`FloorBatcher.ts`): the run rows and the nodes' writes of every run in flight, one statement per
 * flush, one flush at a time, each run going on only after the flush holding its write committed.
 */
import { Entity, SingleRunner } from "@effect/cluster"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Rpc } from "@effect/rpc"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import pg from "pg"
import { freePort } from "../platform/FreePort.js"
import { concurrentRuns } from "./Concurrent.js"
import { makeFloorBatcher } from "./FloorBatcher.js"
import { BENCH_MARK, makePgTrace } from "./PgTrace.js"
import { benchDatabase, instantModel, percentile } from "./support.js"

const RUNS = Number(process.env.BENCH_RUNS ?? 300)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32)
const JOURNAL = process.env.BENCH_FLOOR_JOURNAL === "1"
const AUTH = process.env.BENCH_FLOOR_AUTH === "1"
const BATCHED = process.env.BENCH_FLOOR_BATCHED === "1"
if (BATCHED && !JOURNAL) throw new Error("BENCH_FLOOR_BATCHED=1 batches the journal's writes: set BENCH_FLOOR_JOURNAL=1 too")

let database: string | undefined
const trace = makePgTrace(() => database)

const FloorRun = Entity.make("FloorRun", [Rpc.make("Run", { payload: { runId: Schema.String } })])

const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("runs").add(
    HttpApiEndpoint.post("start", "/runs")
      .setPayload(Schema.Struct({ input_params: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }))
      .addSuccess(Schema.Struct({ id: Schema.String, status: Schema.String }), { status: 202 })
  )
)

export const stackFloorRunsBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  database = db.name
  const model = yield* instantModel
  const pool = new pg.Pool({ connectionString: db.url, max: 20 })
  // The database is dropped WITH (FORCE) at the end: an idle client told so must not end the process.
  pool.on("error", () => {})
  yield* Effect.addFinalizer(() => Effect.promise(() => pool.end()))
  const query = (text: string, values: ReadonlyArray<unknown>) =>
    Effect.async<pg.QueryResult>((resume) => void pool.query(text, [...values], (error, result) => resume(error ? Effect.die(error) : Effect.succeed(result))))
  // The run path's statements are prepared once per connection, as the platform's are.
  const names = new Map<string, string>()
  const prepared = (text: string, values: ReadonlyArray<unknown>) =>
    Effect.async<pg.QueryResult>((resume) => {
      let name = names.get(text)
      if (name === undefined) names.set(text, name = `floor_${names.size}`)
      void pool.query({ name, text, values: [...values] }, (error, result) => resume(error ? Effect.die(error) : Effect.succeed(result)))
    })
  yield* query(
    `CREATE TABLE runs (id uuid PRIMARY KEY, status text NOT NULL, input_params jsonb, output jsonb,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(), finished_at timestamptz);
    CREATE TABLE run_steps (id uuid PRIMARY KEY, run_id uuid NOT NULL, node_id text NOT NULL, status text NOT NULL,
      output jsonb, token_usage jsonb, created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (run_id, node_id));
    CREATE TABLE run_events (run_id uuid NOT NULL, seq bigint NOT NULL, dedupe_key text NOT NULL, type text NOT NULL,
      payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (run_id, seq), UNIQUE (run_id, dedupe_key));
    CREATE TABLE run_spans (run_id uuid NOT NULL, span_id text NOT NULL, scope text NOT NULL, start_unix_nano bigint NOT NULL,
      otlp jsonb NOT NULL, PRIMARY KEY (run_id, span_id));
    CREATE TABLE workflows (id uuid PRIMARY KEY, name text NOT NULL, active_version int NOT NULL);
    CREATE TABLE tenants (id uuid PRIMARY KEY, name text NOT NULL, slug text NOT NULL, settings jsonb NOT NULL);
    CREATE TABLE users (id uuid PRIMARY KEY, email text NOT NULL, name text NOT NULL, password_hash text NOT NULL);
    CREATE TABLE memberships (tenant_id uuid NOT NULL REFERENCES tenants, user_id uuid NOT NULL REFERENCES users,
      role text NOT NULL, status text NOT NULL, PRIMARY KEY (tenant_id, user_id))`,
    []
  )
  const workflowId = randomUUID()
  const tenantId = randomUUID()
  const userId = randomUUID()
  const batcher = makeFloorBatcher(pool)
  yield* query(`INSERT INTO workflows (id, name, active_version) VALUES ($1, 'Bench', 1)`, [workflowId])
  yield* query(`INSERT INTO tenants VALUES ($1, 'Bench', 'bench', '{}')`, [tenantId])
  yield* query(`INSERT INTO users VALUES ($1, 'a@b.c', 'A', 'x')`, [userId])
  yield* query(`INSERT INTO memberships VALUES ($1, $2, 'admin', 'active')`, [tenantId, userId])
  const authenticate = prepared(
    `SELECT u.id, u.email, u.name, m.role, m.status, t.name AS tenant_name, t.slug, t.settings FROM memberships m
      JOIN users u ON u.id = m.user_id JOIN tenants t ON t.id = m.tenant_id WHERE m.tenant_id = $1 AND m.user_id = $2`,
    [tenantId, userId]
  ).pipe(Effect.flatMap((r) => r.rows[0]?.status === "active" ? Effect.void : Effect.dieMessage("not a member")))

  const modelCall = Effect.promise(() =>
    fetch(`${model.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "bench-model", stream: true, messages: [{ role: "user", content: "Step" }] })
    }).then((r) => r.text())
  )
  const hex = (bytes: number) => randomUUID().replace(/-/g, "").slice(0, bytes * 2)
  const span = (runId: string, name: string, start: bigint) => {
    const spanId = hex(8)
    return {
      span_id: spanId,
      scope: "builder-platform",
      start: start.toString(),
      otlp: {
        traceId: runId.replace(/-/g, ""),
        spanId,
        name,
        kind: 1,
        startTimeUnixNano: start.toString(),
        endTimeUnixNano: process.hrtime.bigint().toString(),
        attributes: [{ key: "run.id", value: { stringValue: runId } }, { key: "node.name", value: { stringValue: name } }],
        status: { code: 1 }
      }
    }
  }
  // One statement per node: the step row, its events and spans, and (the last node) the run's end.
  const journalNode = (runId: string, node: string, index: number, text: string) => {
    const step = { step_id: `${runId}:${node}`, node_id: node }
    // At most five events per node: each node numbers its events from its own block of five.
    const events = [
      ...(index === 0 ? [{ type: "run_started", payload: { status: "running" } }] : []),
      { type: "step_started", payload: step },
      { type: "token", payload: { ...step, delta: "ok" } },
      { type: "step_completed", payload: { ...step, status: "completed" } },
      ...(index === 2 ? [{ type: "run_completed", payload: { status: "completed", output: {} } }] : [])
    ].map((e, i) => ({ ...e, seq: index * 5 + i, key: `${e.type}:${node}` }))
    const start = process.hrtime.bigint()
    const spans = [span(runId, `node ${node}`, start), span(runId, "agent respond", start), span(runId, "chat bench-model", start)]
    const stepRow = {
      id: randomUUID(),
      node_id: node,
      output: { text: text.length },
      usage: { "bench-model": { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }
    }
    if (BATCHED) return batcher.node({ runId, step: stepRow, events, spans, end: index === 2 })
    const end = index === 2 ? `, ru AS (UPDATE runs SET status = 'completed', output = '{}', finished_at = clock_timestamp() WHERE id = $1)` : ""
    return prepared(
      `WITH st AS (INSERT INTO run_steps (id, run_id, node_id, status, output, token_usage) VALUES ($2, $1, $3, 'completed', $4, $5)),
        ev AS (INSERT INTO run_events (run_id, seq, dedupe_key, type, payload)
          SELECT $1, v.seq, v.key, v.type, v.payload FROM jsonb_to_recordset($6::jsonb) AS v(seq bigint, key text, type text, payload jsonb)),
        sp AS (INSERT INTO run_spans (run_id, span_id, scope, start_unix_nano, otlp)
          SELECT $1, v.span_id, v.scope, v.start, v.otlp FROM jsonb_to_recordset($7::jsonb) AS v(span_id text, scope text, start bigint, otlp jsonb))${end}
      SELECT 1`,
      [runId, stepRow.id, node, JSON.stringify(stepRow.output), JSON.stringify(stepRow.usage), JSON.stringify(events), JSON.stringify(spans)]
    ).pipe(Effect.asVoid)
  }
  const EntityLive = FloorRun.toLayer(Effect.succeed({
    Run: ({ payload: { runId } }) =>
      Effect.gen(function*() {
        const nodes = ["a", "b", "c"]
        for (let i = 0; i < nodes.length; i++) {
          const text = yield* modelCall
          if (JOURNAL) {
            yield* journalNode(runId, nodes[i], i, text)
            continue
          }
          yield* prepared(`INSERT INTO run_steps (id, run_id, node_id, status, output, token_usage) VALUES ($1, $2, $3, 'completed', $4, $5)`, [
            randomUUID(),
            runId,
            nodes[i],
            JSON.stringify({ text: text.length }),
            JSON.stringify({ "bench-model": { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } })
          ])
        }
        if (!JOURNAL) yield* prepared(`UPDATE runs SET status = 'completed', output = $2, finished_at = clock_timestamp() WHERE id = $1`, [runId, "{}"])
      })
  }))
  const Cluster = EntityLive.pipe(
    Layer.provideMerge(SingleRunner.layer({
      runnerStorage: "sql",
      shardingConfig: { entityMessagePollInterval: "1 second", entityReplyPollInterval: "1 second", simulateRemoteSerialization: false }
    })),
    Layer.provide(PgClient.layer({ url: Redacted.make(db.url), maxConnections: 4 })),
    Layer.orDie
  )
  const cluster = yield* Layer.build(Cluster)
  const client = yield* FloorRun.client.pipe(Effect.provide(cluster))
  const startRun = Effect.gen(function*() {
    const id = randomUUID()
    if (AUTH) yield* authenticate
    if (JOURNAL) yield* prepared(`SELECT name, active_version FROM workflows WHERE id = $1`, [workflowId])
    if (BATCHED) yield* batcher.startRun(id)
    else yield* prepared(`INSERT INTO runs (id, status, input_params) VALUES ($1, 'pending', $2)`, [id, "{}"])
    yield* client(id).Run({ runId: id }, { discard: true }).pipe(Effect.orDie)
    return { id, status: "pending" }
  }).pipe(Effect.withTracerEnabled(false))

  const port = yield* freePort
  const Server = HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(HttpApiBuilder.group(Api, "runs", (h) => h.handle("start", () => startRun))))),
    Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
  )
  yield* Layer.launch(Server).pipe(Effect.forkScoped)
  const base = `http://127.0.0.1:${port}`
  while (!(yield* Effect.promise(() => fetch(`${base}/runs`, { method: "OPTIONS" }).then(() => true, () => false)))) yield* Effect.sleep("20 millis")

  const start = process.env.BENCH_START === "direct"
    ? Effect.map(startRun, (r) => r.id)
    : Effect.promise(() =>
      fetch(`${base}/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input_params: {} }) })
        .then(async (r) => {
          const body = await r.json() as { id: string }
          if (r.status !== 202) throw new Error(`POST /runs: ${r.status}`)
          return body.id
        })
    )
  const unfinished = query(`${BENCH_MARK} SELECT count(*)::int AS n FROM runs WHERE status <> 'completed'`, []).pipe(
    Effect.map((r) => (r.rows[0] as { n: number }).n)
  )
  const flushed = { ...batcher.stats }
  const { ids, nodeCpu, pgCpu, statements, wall } = yield* concurrentRuns({ start, unfinished, trace, warmup: WARMUP, runs: RUNS, concurrency: CONCURRENCY })
  const latencies = (yield* query(`${BENCH_MARK} SELECT extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM runs WHERE id = ANY($1)`, [ids]))
    .rows.map((r) => Number((r as { ms: number }).ms)).sort((a, b) => a - b)
  return [
    `stack floor runs${JOURNAL ? " with the journal's writes" : ""}${BATCHED ? " batched" : ""}${
      AUTH ? " and authentication" : ""
    }: ${RUNS} runs of 3 nodes after ${WARMUP} to warm up, ${CONCURRENCY} concurrent starts (${
      process.env.BENCH_START === "direct" ? "in-process" : "over HTTP"
    })`,
    `  RESULT_STACK_FLOOR_RUNS_PER_S ${(RUNS / wall).toFixed(1)}; start -> completed p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${
      percentile(latencies, 0.99).toFixed(1)
    } ms`,
    `  CPU per run: this process ${(nodeCpu / RUNS).toFixed(2)} ms (${(nodeCpu / 10 / wall).toFixed(0)}% of a core), PostgreSQL ${
      (pgCpu / RUNS).toFixed(2)
    } ms`,
    `  per run: ${(statements.length / RUNS).toFixed(1)} statements, ${(trace.commits(statements) / RUNS).toFixed(1)} commits${
      BATCHED
        ? `; ${((batcher.stats.writes - flushed.writes) / Math.max(1, batcher.stats.flushes - flushed.flushes)).toFixed(1)} writes a flush, warm-up included`
        : ""
    }`
  ]
}))

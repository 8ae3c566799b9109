import { SqlClient } from "@effect/sql"
import { Effect, Option, Queue, Schema } from "effect"
import { Idempotency } from "../../platform/Idempotency.js"
import { decodeRows, JsonArrayOf, JsonObject, JsonObjectOf, Timestamp } from "../../platform/Rows.js"
import { uuidV7 } from "../../platform/TimedId.js"
import { traced } from "../../platform/Traced.js"
import { requireBuilder, requireReader } from "../../schemas/Authorization.js"
import { conflict, notFound, unprocessable } from "../../schemas/Errors.js"
import { type AggregateMetrics, EvalRun, ResultStatus } from "../../schemas/Eval.js"
import type { EvalRunFilters, EvalRunRequest, ResultFilters } from "../../schemas/Eval.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import { pageOf, pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { AiEmployees } from "../ports/AiEmployees.js"
import { Configs } from "./Configs.js"
import { Datasets } from "./Datasets.js"

export const PREVIEW_ROWS = 5

const RunRow = Schema.Struct({
  ...EvalRun.fields,
  tenant_id: Schema.String,
  aggregate_metrics: Schema.NullOr(JsonObjectOf<Pick<typeof AggregateMetrics.Type, "rubric_scores">>()),
  created_by: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  started_at: Schema.NullOr(Timestamp),
  finished_at: Schema.NullOr(Timestamp)
})
export type RunRow = typeof RunRow.Type
export const runRows = decodeRows("eval_runs", RunRow)

/** The counters are the run's columns; only the score statistics are stored with the metrics. */
export const toRun = ({ tenant_id: _t, created_by: _c, aggregate_metrics, ...row }: RunRow) => ({
  ...row,
  aggregate_metrics: {
    total_rows: row.total_rows,
    completed_rows: row.completed_rows,
    failed_rows: row.failed_rows,
    rubric_scores: aggregate_metrics?.rubric_scores ?? {}
  }
})

const ResultRow = Schema.Struct({
  id: Schema.UUID,
  run_id: Schema.UUID,
  row_id: Schema.UUID,
  position: Schema.Number,
  status: ResultStatus,
  inputs: JsonObject,
  expected_output: Schema.NullOr(JsonObject),
  actual_output: Schema.Unknown,
  simulator_transcript: Schema.NullOr(JsonArrayOf<{ role: string; content: string }>()),
  rubric_scores: Schema.NullOr(JsonObject),
  token_usage: JsonObject,
  duration_ms: Schema.NullOr(Schema.Number),
  workflow_run_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String)
})
type ResultRow = typeof ResultRow.Type
const resultRows = decodeRows("eval_results", ResultRow)

const resultSelect = `SELECT r.id, r.run_id, r.row_id, r.position, r.status, d.inputs, d.expected_output, r.actual_output, r.simulator_transcript,
  r.rubric_scores, r.token_usage, r.duration_ms, r.workflow_run_id::text AS workflow_run_id, r.error
  FROM eval_results r JOIN eval_dataset_rows d ON d.id = r.row_id`

/** Eval runs: created with one result per row to score, listed, cancelled, their results read and compared. */
export class EvalRuns extends Effect.Service<EvalRuns>()("EvalRuns", {
  dependencies: [Configs.Default, Datasets.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const configs = yield* Configs
    const datasets = yield* Datasets
    const aiEmployees = yield* AiEmployees
    const idempotency = yield* Idempotency

    const find = (principal: Principal, id: string) =>
      sql`SELECT * FROM eval_runs WHERE tenant_id = ${principal.tenantId} AND id = ${id}`.pipe(
        runRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Eval run")) : Effect.succeed(rows[0]))
      )

    // Wakes this process's eval worker once a run's rows are committed.
    const created = yield* Queue.sliding<void>(1)
    /** An eval run; with an Idempotency-Key its record commits with the run, so a retry answers this run. */
    const create = (principal: Principal, body: typeof EvalRunRequest.Type & { readonly version?: number | undefined }, idempotencyKey?: string) =>
      idempotency.run({
        principal,
        key: Option.fromNullable(idempotencyKey),
        operation: "eval-run",
        request: body,
        response: EvalRun,
        effect: createRun(principal, body)
      }).pipe(Effect.tap(() => Queue.offer(created, undefined)))

    const createRun = (principal: Principal, body: typeof EvalRunRequest.Type & { readonly version?: number | undefined }) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const config = yield* configs.find(principal, body.config_id)
        const dataset = yield* datasets.find(principal, body.dataset_id)
        if (dataset === undefined) return yield* notFound("Dataset")
        if (dataset.mapped_rows === 0) {
          return yield* unprocessable("DATASET_NOT_MAPPED", "Map the dataset's columns to inputs first (POST /datasets/{id}/mapping)")
        }
        const workflow = yield* aiEmployees.visible(principal, config.workflow_id as WorkflowId)
        const id = uuidV7()
        const total = body.is_preview ? Math.min(PREVIEW_ROWS, dataset.mapped_rows) : dataset.mapped_rows
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO eval_runs ${
            sql.insert({
              id,
              tenant_id: principal.tenantId,
              workflow_id: config.workflow_id,
              config_id: config.id,
              dataset_id: dataset.id,
              version: body.version ?? workflow.latest_version,
              is_preview: body.is_preview,
              total_rows: total,
              created_by: principal.userId
            })
          }`
          yield* sql`INSERT INTO eval_results (id, run_id, row_id, position)
            SELECT gen_random_uuid(), ${id}, d.id, d.position FROM eval_dataset_rows d
            WHERE d.dataset_id = ${dataset.id} ORDER BY d.position LIMIT ${total}`
        })).pipe(Effect.orDie)
        return toRun(yield* find(principal, id))
      })

    const list = (principal: Principal, f: typeof EvalRunFilters.Type) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const where = sql.and([
          sql`tenant_id = ${principal.tenantId}`,
          ...(f.workflow_id !== undefined ? [sql`workflow_id = ${f.workflow_id}`] : []),
          ...(f.config_id !== undefined ? [sql`config_id = ${f.config_id}`] : []),
          ...(f.dataset_id !== undefined ? [sql`dataset_id = ${f.dataset_id}`] : []),
          ...(f.status !== undefined ? [sql`status = ${f.status}`] : []),
          ...(f.is_preview !== undefined ? [sql`is_preview = ${f.is_preview}`] : [])
        ])
        const rows = yield* sql`SELECT * FROM eval_runs WHERE ${where} ORDER BY created_at DESC, id LIMIT ${f.page_size} OFFSET ${pageOffset(f)}`.pipe(
          runRows,
          Effect.orDie
        )
        const [c] = yield* sql`SELECT count(*)::int AS n FROM eval_runs WHERE ${where}`.pipe(decodeRows("eval_runs", Schema.Struct({ n: Schema.Number }))).pipe(
          Effect.orDie
        )
        return pageOf(f, rows.map(toRun), c?.n ?? 0)
      })

    const cancel = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const run = yield* find(principal, id)
        const cancelled = yield* sql.withTransaction(Effect.gen(function*() {
          const rows = yield* sql`UPDATE eval_runs SET status = 'cancelled', finished_at = now() WHERE id = ${id} AND status IN ('pending', 'running')
            RETURNING *`.pipe(runRows)
          if (
            rows.length > 0
          ) yield* sql`UPDATE eval_results SET status = 'cancelled', lease_until = NULL WHERE run_id = ${id} AND status IN ('pending', 'running')`
          return rows[0]
        })).pipe(Effect.orDie)
        if (cancelled === undefined) return yield* conflict("EVAL_RUN_TERMINAL", `The eval run is already ${run.status}`)
        return toRun(cancelled)
      })

    const results = (principal: Principal, id: string, f: typeof ResultFilters.Type) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        yield* find(principal, id)
        const status = f.status !== undefined ? sql`AND r.status = ${f.status}` : sql``
        const rows = yield* sql`${sql.unsafe(resultSelect)} WHERE r.run_id = ${id} ${status} ORDER BY r.position
          LIMIT ${f.page_size} OFFSET ${pageOffset(f)}`.pipe(resultRows, Effect.orDie)
        const [c] = yield* sql`SELECT count(*)::int AS n FROM eval_results r WHERE r.run_id = ${id} ${status}`.pipe(
          decodeRows("eval_results", Schema.Struct({ n: Schema.Number }))
        ).pipe(Effect.orDie)
        return pageOf(f, rows, c?.n ?? 0)
      })

    const result = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const [row] = yield* sql`${sql.unsafe(resultSelect)} JOIN eval_runs e ON e.id = r.run_id WHERE e.tenant_id = ${principal.tenantId} AND r.id = ${id}`
          .pipe(
            resultRows,
            Effect.orDie
          )
        return row === undefined ? yield* notFound("Eval result") : row
      })

    const compare = (principal: Principal, id1: string, id2: string) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const run1 = yield* find(principal, id1)
        const run2 = yield* find(principal, id2)
        if (run1.dataset_id !== run2.dataset_id) {
          return yield* unprocessable("EVAL_DATASET_MISMATCH", "The runs score different datasets; compare runs of one dataset")
        }
        const all = yield* sql`${sql.unsafe(resultSelect)} WHERE r.run_id IN (${id1}, ${id2}) ORDER BY r.position`.pipe(resultRows, Effect.orDie)
        const byRow = new Map<string, { first?: ResultRow; second?: ResultRow }>()
        for (const r of all) {
          const pair = byRow.get(r.row_id) ?? {}
          if (r.run_id === id1) {
            pair.first = r
          } else pair.second = r
          byRow.set(r.row_id, pair)
        }
        const pairs = [...byRow.entries()].map(([rowId, pair]) => {
          const one = pair.first?.rubric_scores ?? {}
          const two = pair.second?.rubric_scores ?? {}
          const score = (v: unknown) => (typeof v === "number" ? v : typeof v === "boolean" ? Number(v) : undefined)
          const deltas = Object.fromEntries(
            Object.keys({ ...one, ...two }).flatMap((k) => {
              const a = score(one[k])
              const b = score(two[k])
              return a !== undefined && b !== undefined ? [[k, b - a]] : []
            })
          )
          const either = (pair.first ?? pair.second)!
          return {
            row_id: rowId,
            position: either.position,
            inputs: either.inputs,
            result_1: pair.first ?? null,
            result_2: pair.second ?? null,
            score_deltas: deltas
          }
        }).sort((a, b) => a.position - b.position)
        return { run_1: toRun(run1), run_2: toRun(run2), pairs }
      })

    return traced("EvalRuns", {
      create,
      list,
      get: (principal: Principal, id: string) => Effect.zipRight(requireReader(principal), Effect.map(find(principal, id), toRun)),
      cancel,
      results,
      result,
      compare,
      exists: (principal: Principal, id: string) => Effect.map(Effect.option(find(principal, id)), Option.isSome),
      /** Waits for the next run created on this process. */
      nextCreated: Queue.take(created)
    })
  })
}) {}

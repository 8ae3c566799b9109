import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, JsonObjectOf, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { taskError } from "../../platform/workers/TaskErrors.js"
import { WorkerPool, workerTask } from "../../platform/workers/WorkerPool.js"
import { requireBuilder, requireReader } from "../../schemas/Authorization.js"
import { badRequest, notFound, PayloadTooLarge, unprocessable } from "../../schemas/Errors.js"
import type { MappingRequest } from "../../schemas/Eval.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import { pageOf, pageOffset, type PageParams } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { AiEmployees } from "../ports/AiEmployees.js"
import type * as CsvTask from "./CsvTask.js"

const csvTask = workerTask<typeof CsvTask, "parseDataset">(new URL("./CsvTask.js", import.meta.url), "parseDataset")

export const MAX_DATASET_BYTES = 5 * 1024 * 1024
export const MAX_DATASET_ROWS = 10_000

const DatasetRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.String,
  workflow_id: Schema.UUID,
  name: Schema.String,
  headers: Schema.Array(Schema.String),
  row_count: Schema.Number,
  input_map: Schema.NullOr(JsonObjectOf<Record<string, string>>()),
  expected_output_map: Schema.NullOr(JsonObjectOf<Record<string, string>>()),
  mapped_rows: Schema.Number,
  created_at: Timestamp
})
type DatasetRow = typeof DatasetRow.Type
const datasetRows = decodeRows("eval_datasets", DatasetRow)

const RowRow = Schema.Struct({
  id: Schema.UUID,
  position: Schema.Number,
  inputs: JsonObjectOf<Record<string, unknown>>(),
  expected_output: Schema.NullOr(JsonObjectOf<Record<string, unknown>>()),
  simulator_instructions: Schema.NullOr(Schema.String)
})
const rowRows = decodeRows("eval_dataset_rows", RowRow)

const toDataset = ({ tenant_id: _, ...row }: DatasetRow) => row

/** Datasets: a CSV uploaded for an AI Employee, mapped to its inputs (and expected outputs) as rows. */
export class Datasets extends Effect.Service<Datasets>()("Datasets", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const aiEmployees = yield* AiEmployees
    const workers = yield* WorkerPool

    const select = sql`SELECT d.id, d.tenant_id, d.workflow_id, d.name, d.headers, d.row_count, d.input_map, d.expected_output_map, d.created_at,
      (SELECT count(*)::int FROM eval_dataset_rows r WHERE r.dataset_id = d.id) AS mapped_rows FROM eval_datasets d`

    const find = (principal: Principal, id: string) =>
      sql`${select} WHERE d.tenant_id = ${principal.tenantId} AND d.id = ${id}`.pipe(
        datasetRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Dataset")) : Effect.succeed(rows[0]))
      )

    const checked = (principal: Principal, text: string) =>
      Effect.gen(function*() {
        if (Buffer.byteLength(text) > MAX_DATASET_BYTES) {
          return yield* new PayloadTooLarge({ code: "DATASET_TOO_LARGE", message: "Datasets are limited to 5 MiB" })
        }
        const parsed = yield* workers.run(csvTask, { text }, { tenantId: principal.tenantId }).pipe(Effect.mapError((e) => taskError(e, "INVALID_CSV", "csv")))
        if ("invalid" in parsed) {
          const { line, message } = parsed.invalid
          return yield* badRequest("INVALID_CSV", `The CSV is malformed${line !== undefined ? ` at line ${line}` : ""}: ${message}`, [{
            line: line ?? null,
            message
          }])
        }
        if (parsed.records.length > MAX_DATASET_ROWS) {
          return yield* unprocessable("DATASET_TOO_MANY_ROWS", `Datasets are limited to ${MAX_DATASET_ROWS} rows; this one has ${parsed.records.length}`)
        }
        return parsed
      })

    const create = (principal: Principal, input: { name: string; workflowId: string; csv: string }) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        yield* aiEmployees.visible(principal, input.workflowId as WorkflowId)
        const { headers, records } = yield* checked(principal, input.csv)
        const id = randomUUID()
        yield* sql`INSERT INTO eval_datasets ${
          sql.insert({
            id,
            tenant_id: principal.tenantId,
            workflow_id: input.workflowId,
            name: input.name,
            headers: [...headers],
            csv_data: input.csv,
            row_count: records.length,
            created_by: principal.userId
          })
        }`.pipe(Effect.orDie)
        return toDataset(yield* find(principal, id))
      })

    /** Materialises the rows: each input (and expected output) field from its column. */
    const map = (principal: Principal, id: string, body: typeof MappingRequest.Type) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        yield* find(principal, id)
        const csv = body.csv_data ??
          (yield* sql`SELECT csv_data FROM eval_datasets WHERE id = ${id}`.pipe(decodeRows("eval_datasets", Schema.Struct({ csv_data: Schema.String }))).pipe(
            Effect.orDie
          ))[0].csv_data
        const { headers, records } = yield* checked(principal, csv)
        const column = (name: string) => headers.indexOf(name)
        const simulatorColumn = body.simulator_instructions_column ?? (headers.includes("simulator_instructions") ? "simulator_instructions" : undefined)
        const named = [
          ...Object.values(body.input_map),
          ...Object.values(body.expected_output_map ?? {}),
          ...(simulatorColumn !== undefined ? [simulatorColumn] : [])
        ]
        const unknown = named.filter((c) => column(c) < 0)
        if (unknown.length > 0) {
          return yield* unprocessable("DATASET_UNKNOWN_COLUMN", `No such column: ${unknown.join(", ")} (the dataset has ${headers.join(", ")})`)
        }
        const pick = (record: ReadonlyArray<string>, map: Record<string, string>) =>
          Object.fromEntries(Object.entries(map).map(([field, col]) => [field, record[column(col)] ?? ""]))
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`UPDATE eval_datasets SET headers = ${[...headers]}, csv_data = ${csv}, row_count = ${records.length},
            input_map = ${JSON.stringify(body.input_map)}::jsonb,
            expected_output_map = ${body.expected_output_map === undefined ? null : JSON.stringify(body.expected_output_map)}::jsonb
            WHERE id = ${id}`
          yield* sql`DELETE FROM eval_dataset_rows WHERE dataset_id = ${id}`
          const rows = records.map((record, position) => ({
            id: randomUUID(),
            dataset_id: id,
            position,
            inputs: JSON.stringify(pick(record, body.input_map)),
            expected_output: body.expected_output_map === undefined ? null : JSON.stringify(pick(record, body.expected_output_map)),
            simulator_instructions: simulatorColumn !== undefined ? (record[column(simulatorColumn)] ?? null) : null
          }))
          for (let i = 0; i < rows.length; i += 500) yield* sql`INSERT INTO eval_dataset_rows ${sql.insert(rows.slice(i, i + 500))}`
        })).pipe(Effect.orDie)
        return toDataset(yield* find(principal, id))
      })

    const rows = (principal: Principal, id: string, params: PageParams) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        yield* find(principal, id)
        const items = yield* sql`SELECT id, position, inputs, expected_output, simulator_instructions FROM eval_dataset_rows
          WHERE dataset_id = ${id} ORDER BY position LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(rowRows, Effect.orDie)
        const [c] = yield* sql`SELECT count(*)::int AS n FROM eval_dataset_rows WHERE dataset_id = ${id}`.pipe(
          decodeRows("eval_dataset_rows", Schema.Struct({ n: Schema.Number }))
        ).pipe(Effect.orDie)
        return pageOf(
          params,
          items.map((r) => ({
            id: r.id,
            position: r.position,
            inputs: r.inputs,
            ...(r.expected_output !== null ? { expected_output: r.expected_output } : {}),
            ...(r.simulator_instructions !== null && r.simulator_instructions !== "" ? { simulator_instructions: r.simulator_instructions } : {})
          })),
          c?.n ?? 0
        )
      })

    return traced("Datasets", {
      create,
      map,
      rows,
      list: (principal: Principal, workflowId: string | undefined) =>
        Effect.zipRight(
          requireReader(principal),
          sql`${select} WHERE d.tenant_id = ${principal.tenantId} ${workflowId !== undefined ? sql`AND d.workflow_id = ${workflowId}` : sql``}
            ORDER BY d.created_at DESC, d.id`.pipe(datasetRows, Effect.orDie)
        ).pipe(Effect.map((rows) => ({ items: rows.map(toDataset) }))),
      get: (principal: Principal, id: string) => Effect.zipRight(requireReader(principal), Effect.map(find(principal, id), toDataset)),
      remove: (principal: Principal, id: string) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          yield* find(principal, id)
          yield* sql`DELETE FROM eval_datasets WHERE id = ${id}`.pipe(Effect.orDie)
        }),
      find: (principal: Principal, id: string) => Effect.option(find(principal, id)).pipe(Effect.map(Option.getOrUndefined))
    })
  })
}) {}

import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { PreparedSql } from "../../platform/PreparedSql.js"
import { makeGroupCommit } from "./GroupCommit.js"

/** A new run row, as RunModule.create writes it. */
export interface RunInsert {
  readonly id: string
  readonly tenant_id: string
  readonly workflow_id: string
  readonly workflow_name: string
  readonly version: number
  readonly status: string
  readonly trigger_type: string
  readonly is_dry_run: boolean
  readonly input_params: Record<string, unknown>
  readonly parent_run_id: string | null
  readonly parent_node_id: string | null
  readonly session_id: string | null
  readonly held: boolean
  readonly created_by: string | null
  readonly search_overrides: unknown
  readonly skip_reason: string | null
  readonly finished_at: Date | null
  readonly scheduled_fire_time: Date | null
  readonly api_key_id: string | null
}

/** The run row as the insert returns it (an existing row when the id was taken: a child run created again). */
export interface InsertedRun {
  readonly id: string
  readonly tenant_id: string
  readonly workflow_id: string
  readonly workflow_name: string
  readonly version: number
  readonly status: string
  readonly trigger_type: string
  readonly is_dry_run: boolean
  readonly held: boolean
  readonly parent_run_id: string | null
  readonly session_id: string | null
  readonly created_at: Date
  readonly input_params: Record<string, unknown>
}

/** Any number of new runs in one statement with a fixed text (prepared once per connection). */
const INSERT_RUNS = `INSERT INTO runs (id, tenant_id, workflow_id, workflow_name, version, status, trigger_type, is_dry_run, input_params,
    parent_run_id, parent_node_id, session_id, held, created_by, search_overrides, skip_reason, finished_at, scheduled_fire_time, api_key_id)
  SELECT v.id, v.tenant_id, v.workflow_id, v.workflow_name, v.version, v.status, v.trigger_type, v.is_dry_run, v.input_params,
    v.parent_run_id, v.parent_node_id, v.session_id, v.held, v.created_by, v.search_overrides, v.skip_reason, v.finished_at,
    v.scheduled_fire_time, v.api_key_id
  FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, tenant_id uuid, workflow_id uuid, workflow_name text, version int, status text,
    trigger_type text, is_dry_run boolean, input_params jsonb, parent_run_id uuid, parent_node_id text, session_id uuid, held boolean,
    created_by uuid, search_overrides jsonb, skip_reason text, finished_at timestamptz, scheduled_fire_time timestamptz, api_key_id uuid)
  ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id
  RETURNING id, tenant_id, workflow_id, workflow_name, version, status, trigger_type, is_dry_run, held, parent_run_id,
    session_id, created_at, input_params`

/**
 * Run starts grouped the way journal commits are (GroupCommit.ts): starts that arrive while one
 * is written go together in the next statement; a start alone is written at once. Inside a
 * transaction the insert is part of it. The same id twice in one statement would fail it, so a
 * group holds each id once (and a failed group is written row by row).
 */
export const makeRunInserts = (sql: PreparedSql["Type"]) =>
  Effect.gen(function*() {
    const insertAll = (rows: ReadonlyArray<RunInsert>) =>
      // Hot path: every run start; the columns are the RETURNING list above.
      Effect.map(sql.query<InsertedRun>(INSERT_RUNS, [JSON.stringify(rows)]), (inserted) => {
        const byId = new Map(inserted.map((row) => [row.id, row]))
        return rows.map((row) => byId.get(row.id)!)
      })
    const submit = yield* makeGroupCommit<RunInsert, InsertedRun>({
      one: (row) => Effect.map(insertAll([row]), (rows) => rows[0]),
      many: insertAll,
      touches: (row) => [row.id],
      maxEntries: 64,
      writers: 2
    })
    return (row: RunInsert) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
        Option.isSome(transaction) ? Effect.orDie(Effect.map(insertAll([row]), (rows) => rows[0])) : submit(row))
  })

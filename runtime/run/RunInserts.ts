import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { PreparedSql } from "../../platform/PreparedSql.js"
import type { RunRow } from "../../schemas/RunRow.js"
import { makeGroupCommit } from "./GroupCommit.js"

/** The columns a run start writes, each with its type in the statement's record set. */
const WRITTEN = {
  id: "uuid",
  tenant_id: "uuid",
  workflow_id: "uuid",
  workflow_name: "text",
  version: "int",
  status: "text",
  trigger_type: "text",
  is_dry_run: "boolean",
  input_params: "jsonb",
  parent_run_id: "uuid",
  parent_node_id: "text",
  session_id: "uuid",
  held: "boolean",
  created_by: "uuid",
  search_overrides: "jsonb",
  skip_reason: "text",
  finished_at: "timestamptz",
  scheduled_fire_time: "timestamptz"
} as const

/** What the insert returns of each run (an existing row when the id was taken: a child run created again). */
const RETURNED = [
  "id",
  "tenant_id",
  "workflow_id",
  "workflow_name",
  "version",
  "status",
  "trigger_type",
  "is_dry_run",
  "held",
  "parent_run_id",
  "session_id",
  "created_at",
  "input_params"
] as const

/** A new run row, as RunModule.create writes it, with what its insert checks (`check_head`). */
export type RunInsert = Pick<RunRow, keyof typeof WRITTEN> & {
  readonly api_key_id: string | null
  /** `active`: written only if the AI Employee is unarchived, has `workflow_name` and `version` active; `exists`: the first two. */
  readonly check_head: "active" | "exists" | null
  /** With `check_head`: written only if the AI Employee's latest version is this one. */
  readonly head_latest: number | null
}

export type InsertedRun = Pick<RunRow, (typeof RETURNED)[number]>

const columns = [...Object.keys(WRITTEN), "api_key_id"]

/** Any number of new runs in one statement with a fixed text (prepared once per connection). */
const INSERT_RUNS = `INSERT INTO runs (${columns.join(", ")})
  SELECT ${columns.map((c) => `v.${c}`).join(", ")}
  FROM jsonb_to_recordset($1::jsonb) AS v(${Object.entries(WRITTEN).map(([c, type]) => `${c} ${type}`).join(", ")},
    api_key_id uuid, check_head text, head_latest int)
  LEFT JOIN workflows w ON v.check_head IS NOT NULL AND w.tenant_id = v.tenant_id AND w.id = v.workflow_id
  WHERE v.check_head IS NULL OR (w.archived_at IS NULL AND w.name = v.workflow_name
    AND (v.check_head <> 'active' OR w.active_version = v.version) AND (v.head_latest IS NULL OR w.latest_version = v.head_latest))
  ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id
  RETURNING ${RETURNED.join(", ")}`

/**
 * Run starts grouped the way journal commits are (GroupCommit.ts): starts that arrive while one
 * is written go together in the next statement; a start alone is written at once. Inside a
 * transaction the insert is part of it. The same id twice in one statement would fail it, so a
 * group holds each id once (and a failed group is written row by row).
 */
export const makeRunInserts = (sql: PreparedSql["Type"]) =>
  Effect.gen(function*() {
    // Hot path: every run start; the columns are the RETURNING list above. A row its check_head
    // refused is not returned: its entry gets undefined.
    // Its generic plan is as good as a custom one (nothing in it depends on the values), and planned once.
    const insertAll = (rows: ReadonlyArray<RunInsert>) =>
      Effect.map(sql.queryGeneric<InsertedRun>(INSERT_RUNS, [JSON.stringify(rows)]), (inserted) => {
        const byId = new Map(inserted.map((row) => [row.id, row]))
        return rows.map((row) => byId.get(row.id))
      })
    const submit = yield* makeGroupCommit<RunInsert, InsertedRun | undefined>({
      one: (row) => Effect.map(insertAll([row]), (rows) => rows[0]),
      many: insertAll,
      touches: (row) => [row.id],
      tenantOf: (row) => row.tenant_id,
      maxEntries: 64,
      writers: 2
    })
    return (row: RunInsert) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
        Option.isSome(transaction) ? Effect.orDie(Effect.map(insertAll([row]), (rows) => rows[0])) : submit(row))
  })

import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../../../platform/Rows.js"
import { convergeRunTables, createRunTables } from "./RunTables.js"

/**
 * The run tables (runs, steps, events, spans, HITL requests, waits), all in this one set: a new
 * database gets them here whole; a database from before this set existed (the run tables then
 * came with the workflow service's migrations) gets the kernel's columns and tables added. The
 * @effect/workflow messages of the engine the kernel replaced are dropped: the run rows are the
 * durable record.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* createRunTables
  yield* convergeRunTables
  const [cluster] = yield* sql`SELECT to_regclass('cluster_messages') IS NOT NULL AS present`.pipe(
    decodeRows("query", Schema.Struct({ present: Schema.Boolean }))
  )
  if (cluster?.present === true) {
    yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT request_id FROM cluster_messages WHERE entity_type LIKE 'Workflow/%')`
    yield* sql`DELETE FROM cluster_messages WHERE entity_type LIKE 'Workflow/%'`
  }
})

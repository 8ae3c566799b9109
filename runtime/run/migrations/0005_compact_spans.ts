import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Spans stored compactly (issue 38): one row per set of a run's spans ended together, the spans a
 * JSON array of otel/CompactSpan.ts's form in `spans` (about a fifth of their OTLP JSON). Rows of
 * earlier releases keep their one OTLP span in `otlp` and are read as they are. Rows past 128
 * bytes are compressed in place (TOAST) on the three journal tables.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE run_spans ADD COLUMN IF NOT EXISTS spans jsonb, ALTER COLUMN otlp DROP NOT NULL`
  yield* sql`ALTER TABLE run_spans SET (toast_tuple_target = 128)`
  yield* sql`ALTER TABLE run_events SET (toast_tuple_target = 128)`
  yield* sql`ALTER TABLE run_steps SET (toast_tuple_target = 128)`
})

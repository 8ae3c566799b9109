import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Spans stored compactly (issue 38): one row per set of a run's spans ended together, the spans a
 * JSON array of otel/CompactSpan.ts's form in `spans` (under a third of their OTLP JSON's bytes).
 * Rows of earlier releases keep their one OTLP span in `otlp` and are read as they are.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE run_spans ADD COLUMN IF NOT EXISTS spans jsonb, ALTER COLUMN otlp DROP NOT NULL`
})

import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The spans and log records of runs, each kept in its OTLP JSON form (what the trace endpoints serve). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE run_spans (
      run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      span_id text NOT NULL,
      tenant_id uuid NOT NULL,
      scope text NOT NULL,
      start_unix_nano bigint NOT NULL,
      otlp jsonb NOT NULL,
      PRIMARY KEY (run_id, span_id)
    )`
  yield* sql`
    CREATE TABLE run_logs (
      run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      seq bigint NOT NULL,
      tenant_id uuid NOT NULL,
      time_unix_nano bigint NOT NULL,
      otlp jsonb NOT NULL,
      PRIMARY KEY (run_id, seq)
    )`
})

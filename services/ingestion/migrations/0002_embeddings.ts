import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Chunk embeddings for blended search. Vectors are stored as real[] so that the table works on
 * any PostgreSQL; where the server has pgvector the search casts them to `vector` and lets it do
 * the distance, elsewhere bp_cosine_similarity computes it in SQL.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE kb_chunk_embeddings (
      chunk_id uuid PRIMARY KEY REFERENCES kb_chunks(id) ON DELETE CASCADE,
      tenant_id uuid NOT NULL,
      kb_id uuid NOT NULL,
      model text NOT NULL,
      embedding real[] NOT NULL
    )`
  yield* sql`CREATE INDEX kb_chunk_embeddings_kb ON kb_chunk_embeddings (kb_id, model)`
  yield* sql`
    CREATE FUNCTION bp_cosine_similarity(a real[], b real[]) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN sum(x * x) = 0 OR sum(y * y) = 0 THEN 0
                  ELSE sum(x * y) / (sqrt(sum(x * x)) * sqrt(sum(y * y))) END
      FROM unnest(a, b) AS t(x, y)
    $$`
  // pgvector when the server offers it; its absence is not an error.
  yield* sql`DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
        CREATE EXTENSION IF NOT EXISTS vector;
      END IF;
    EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'pgvector is not available: %', SQLERRM;
    END $$`
})

import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { TenantId } from "../../schemas/Ids.js"

/** Full-text query over any of the query's words; undefined when it has none. */
export const lexicalQuery = (query: string): string | undefined => {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])].slice(0, 32)
  return words.length === 0 ? undefined : words.join(" | ")
}

export const ChunkToEmbed = Schema.Struct({ chunk_id: Schema.String, tenant_id: TenantId, kb_id: Schema.String, title: Schema.String, text: Schema.String })
export type ChunkToEmbed = typeof ChunkToEmbed.Type

/** A candidate passage with its lexical rank and its semantic similarity, blended by the caller. */
export const BlendedRow = Schema.Struct({
  chunk_id: Schema.String,
  document_id: Schema.String,
  title: Schema.String,
  text: Schema.String,
  lexical: Schema.Number,
  semantic: Schema.Number
})
export type BlendedRow = typeof BlendedRow.Type

const vectorLiteral = (v: ReadonlyArray<number>) => `{${v.map((x) => (Number.isFinite(x) ? x : 0)).join(",")}}`

/** SQL of chunk embeddings and of the blended (full-text plus vector) candidate search. */
export class EmbeddingsRepo extends Effect.Service<EmbeddingsRepo>()("EmbeddingsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Whether pgvector is installed in this database (it does the distance when it is). */
    const pgvector = sql`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS ok`.pipe(
      decodeRows("pg_extension", Schema.Struct({ ok: Schema.Boolean }))
    ).pipe(
      Effect.map((rows) => rows[0]?.ok === true),
      Effect.orDie
    )

    return traced("EmbeddingsRepo", {
      pgvector,
      /** Chunks of live documents that have no embedding for `model` yet. */
      missing: (model: string, limit: number, documentId?: string) =>
        sql`SELECT c.id AS chunk_id, c.tenant_id, c.kb_id, c.title, c.text
          FROM kb_chunks c JOIN kb_documents d ON d.id = c.document_id
          LEFT JOIN kb_chunk_embeddings e ON e.chunk_id = c.id AND e.model = ${model}
          WHERE e.chunk_id IS NULL AND d.deleted_at IS NULL
            ${documentId === undefined ? sql`` : sql`AND c.document_id = ${documentId}`}
          ORDER BY c.id LIMIT ${limit}`.pipe(decodeRows("kb_chunks", ChunkToEmbed), Effect.orDie),
      store: (model: string, rows: ReadonlyArray<{ chunk: ChunkToEmbed; vector: ReadonlyArray<number> }>) =>
        Effect.forEach(rows, ({ chunk, vector }) =>
          sql`INSERT INTO kb_chunk_embeddings (chunk_id, tenant_id, kb_id, model, embedding)
            SELECT ${chunk.chunk_id}, ${chunk.tenant_id}, ${chunk.kb_id}, ${model}, ${vectorLiteral(vector)}::real[]
            WHERE EXISTS (SELECT 1 FROM kb_chunks WHERE id = ${chunk.chunk_id})
            ON CONFLICT (chunk_id) DO UPDATE SET model = EXCLUDED.model, embedding = EXCLUDED.embedding`, { discard: true }).pipe(
            Effect.orDie
          ),
      /**
       * The best `candidates` chunks by full-text rank and the best by vector similarity, each with
       * both scores: the caller blends them.
       */
      blended: (input: {
        tenantId: TenantId
        kbIds: ReadonlyArray<string>
        query: string
        vector: ReadonlyArray<number>
        model: string
        candidates: number
        pgvector: boolean
      }) => {
        if (input.kbIds.length === 0) return Effect.succeed([] as ReadonlyArray<BlendedRow>)
        const tsquery = lexicalQuery(input.query)
        const q = sql`${vectorLiteral(input.vector)}::real[]`
        const similarity = input.pgvector
          ? sql`COALESCE(NULLIF(1 - (e.embedding::vector <=> ${q}::vector), 'NaN'::float8), 0)`
          : sql`bp_cosine_similarity(e.embedding, ${q})`
        const rank = tsquery === undefined ? sql`0` : sql`ts_rank_cd(c.tsv, to_tsquery('english', ${tsquery}), 32)`
        const lexical = tsquery === undefined
          ? sql`SELECT NULL::uuid AS id WHERE false`
          : sql`SELECT c.id FROM kb_chunks c JOIN kb_documents d ON d.id = c.document_id
              WHERE c.tenant_id = ${input.tenantId} AND c.kb_id IN ${sql.in(input.kbIds)} AND d.deleted_at IS NULL
                AND c.tsv @@ to_tsquery('english', ${tsquery})
              ORDER BY ${rank} DESC, c.id LIMIT ${input.candidates}`
        return sql`
          WITH lexical AS (${lexical}),
          semantic AS (
            SELECT e.chunk_id AS id FROM kb_chunk_embeddings e JOIN kb_chunks c ON c.id = e.chunk_id
              JOIN kb_documents d ON d.id = c.document_id
            WHERE e.tenant_id = ${input.tenantId} AND e.kb_id IN ${sql.in(input.kbIds)} AND e.model = ${input.model}
              AND d.deleted_at IS NULL
            ORDER BY ${similarity} DESC, e.chunk_id LIMIT ${input.candidates}
          )
          SELECT c.id AS chunk_id, c.document_id, d.title, c.text, ${rank} AS lexical,
                 COALESCE(${similarity}, 0) AS semantic
          FROM (SELECT id FROM lexical UNION SELECT id FROM semantic) k
          JOIN kb_chunks c ON c.id = k.id JOIN kb_documents d ON d.id = c.document_id
          LEFT JOIN kb_chunk_embeddings e ON e.chunk_id = c.id AND e.model = ${input.model}`.pipe(decodeRows("kb_chunks", BlendedRow), Effect.orDie)
      }
    })
  })
}) {}

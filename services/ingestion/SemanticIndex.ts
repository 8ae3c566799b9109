import { Duration, Effect, Option, Schedule } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { traced } from "../../platform/Traced.js"
import { Embeddings } from "../../runtime/models/Embeddings.js"
import type { TenantId } from "../../schemas/Ids.js"
import { EmbeddingsRepo } from "./EmbeddingsRepo.js"

/** How much the full-text rank weighs in a blended score; the vector similarity weighs the rest. */
export const LEXICAL_WEIGHT = 0.3
const BACKFILL_BATCH = 256

export interface RankedChunk {
  readonly chunk_id: string
  readonly document_id: string
  readonly title: string
  readonly text: string
  readonly score: number
}

/**
 * Vector similarity next to full-text ranking, when `LLM_EMBEDDING_MODEL` is set. Chunks are
 * embedded as documents arrive; a background pass embeds whatever is still missing (a failed
 * call, a restored document, a new model), so a search never waits on a backlog.
 */
export class SemanticIndex extends Effect.Service<SemanticIndex>()("SemanticIndex", {
  dependencies: [EmbeddingsRepo.Default],
  scoped: Effect.gen(function*() {
    const embeddings = yield* Embeddings
    const repo = yield* EmbeddingsRepo
    const config = yield* AppConfig
    const pgvector = yield* repo.pgvector
    if (Option.isSome(embeddings.model)) {
      yield* Effect.logInfo(`Blended search with ${embeddings.model.value}; vector distance by ${pgvector ? "pgvector" : "SQL over real[] (no pgvector)"}`)
    }

    /** Embeds missing chunks (of one document, or any); failures are logged and left for the next pass. */
    const embedMissing = (documentId?: string) =>
      Option.match(embeddings.model, {
        onNone: () => Effect.succeed(0),
        onSome: (model) =>
          Effect.gen(function*() {
            const chunks = yield* repo.missing(model, BACKFILL_BATCH, documentId)
            if (chunks.length === 0) return 0
            const vectors = yield* embeddings.embed(chunks.map((c) => `${c.title}\n${c.text}`))
            yield* repo.store(model, chunks.map((chunk, i) => ({ chunk, vector: vectors[i] })))
            return chunks.length
          }).pipe(
            Effect.catchAll((e) => Effect.logWarning(`Embedding chunks failed; they will be retried: ${e.message}`).pipe(Effect.as(0)))
          )
      })

    if (Option.isSome(embeddings.model)) {
      yield* embedMissing().pipe(
        Effect.repeat({ schedule: Schedule.spaced(Duration.seconds(config.embeddingBackfillSeconds)) }),
        Effect.forkScoped
      )
    }

    /** Blended ranking: `LEXICAL_WEIGHT` of the full-text rank (relative to the best) plus the rest of the cosine similarity. */
    const search = (tenantId: TenantId, kbIds: ReadonlyArray<string>, query: string, topK: number) =>
      Effect.gen(function*() {
        if (Option.isNone(embeddings.model)) return []
        const model = embeddings.model.value
        const [vector] = yield* embeddings.embed([query])
        const rows = yield* repo.blended({ tenantId, kbIds, query, vector: vector, model, candidates: Math.max(topK * 4, 20), pgvector })
        const best = Math.max(0, ...rows.map((r) => Number(r.lexical)))
        return rows
          .map((r) => ({
            chunk_id: r.chunk_id,
            document_id: r.document_id,
            title: r.title,
            text: r.text,
            score: LEXICAL_WEIGHT * (best > 0 ? Number(r.lexical) / best : 0) + (1 - LEXICAL_WEIGHT) * Math.max(0, Number(r.semantic))
          }))
          .sort((a, b) => b.score - a.score || a.chunk_id.localeCompare(b.chunk_id))
          .slice(0, topK)
      })

    return traced("SemanticIndex", { enabled: Option.isSome(embeddings.model), pgvector, embedMissing, search })
  })
}) {}

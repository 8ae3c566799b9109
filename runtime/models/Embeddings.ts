import { HttpClient } from "@effect/platform"
import { Context, Duration, Effect, Layer, Option, Redacted, Schedule, Schema } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { ModelError } from "./ModelError.js"
import { answerJson, providerPost } from "./ProviderPost.js"

const EmbeddingsResponse = Schema.Struct({
  data: Schema.Array(Schema.Struct({ index: Schema.Int, embedding: Schema.Array(Schema.Number) }))
})

const BATCH = 64

/**
 * `/embeddings` on the platform provider with `LLM_EMBEDDING_MODEL` (00-decisions section 4).
 * `model` is none when no embeddings model is configured: search is then full-text only.
 */
export class Embeddings extends Context.Tag("Embeddings")<Embeddings, {
  readonly model: Option.Option<string>
  readonly embed: (inputs: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, ModelError>
}>() {
  static readonly layer = Layer.effect(
    Embeddings,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const client = yield* HttpClient.HttpClient
      const model = Option.isSome(config.llmBaseUrl) ? config.llmEmbeddingModel : Option.none()
      const baseUrl = Option.getOrElse(config.llmBaseUrl, () => "").replace(/\/$/, "")
      const apiKey = Option.getOrUndefined(Option.map(config.llmApiKey, Redacted.value))

      const batch = (name: string, inputs: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const response = yield* providerPost(client, "Embeddings", `${baseUrl}/embeddings`, apiKey, { model: name, input: inputs })
          const body = yield* answerJson(response, "Embeddings").pipe(
            Effect.flatMap((json) =>
              Schema.decodeUnknown(EmbeddingsResponse)(json).pipe(
                Effect.mapError(() => new ModelError({ message: "Embeddings answer is malformed", retryable: false }))
              )
            )
          )
          const vectors = [...body.data].sort((a, b) => a.index - b.index).map((d) => d.embedding)
          if (vectors.length !== inputs.length) {
            return yield* new ModelError({ message: `Embeddings answered ${vectors.length} vectors for ${inputs.length} inputs`, retryable: false })
          }
          return vectors
        }).pipe(
          Effect.scoped,
          Effect.timeoutFail({
            duration: Duration.seconds(config.llmTimeoutSeconds),
            onTimeout: () => new ModelError({ message: "Embeddings call timed out", retryable: true })
          }),
          Effect.retry({ schedule: Schedule.exponential("250 millis", 2).pipe(Schedule.intersect(Schedule.recurs(3))), while: (e) => e.retryable })
        )

      const embed = (inputs: ReadonlyArray<string>) =>
        Option.match(model, {
          onNone: () => Effect.fail(new ModelError({ message: "No embeddings model is configured (LLM_EMBEDDING_MODEL)", retryable: false })),
          onSome: (name) => {
            const batches: Array<ReadonlyArray<string>> = []
            for (let i = 0; i < inputs.length; i += BATCH) batches.push(inputs.slice(i, i + BATCH))
            return Effect.forEach(batches, (b) => batch(name, b)).pipe(
              Effect.map((parts) => parts.flat()),
              Effect.withSpan("Embeddings.embed", { attributes: { model: name, inputs: inputs.length } })
            )
          }
        })

      return { model, embed }
    })
  )
}

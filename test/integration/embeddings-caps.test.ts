import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { Embeddings } from "../../runtime/models/Embeddings.js"
import { MAX_STREAM_BYTES } from "../../runtime/models/EventStreamPost.js"
import { flood, hostileServer } from "../support/Flood.js"
import { configLayer } from "../support/UnitLayers.js"

const FLOOD_BYTES = 50 * 1024 * 1024
const CHUNK = "1,".repeat(32 * 1024)

/** An embeddings provider that answers 50 MB: as a 200 that never becomes valid JSON, or as a 500. */
const floodingProvider = hostileServer((req, res, count) => {
  req.resume()
  const status = req.url?.startsWith("/error") === true ? 500 : 200
  res.writeHead(status, { "content-type": "application/json" })
  res.write(status === 200 ? "{\"data\":[{\"index\":0,\"embedding\":[" : "{\"error\":\"")
  void flood(res, FLOOD_BYTES, () => CHUNK, count)
})

const embeddingsAt = (baseUrl: string) =>
  Embeddings.layer.pipe(
    Layer.provide(NodeHttpClient.layerUndici),
    Layer.provide(configLayer({ LLM_BASE_URL: baseUrl, LLM_EMBEDDING_MODEL: "embed", LLM_TIMEOUT_SECONDS: "20" }))
  )

describe("embeddings provider answers are bounded", () => {
  it.scopedLive("a 50 MB answer is refused once MAX_STREAM_BYTES arrived, not held whole; a 50 MB error body is read 64 KiB far", () =>
    Effect.gen(function*() {
      const peer = yield* floodingProvider
      const embed = (path: string) =>
        Effect.flatMap(Embeddings, (e) => Effect.either(e.embed(["hello"]))).pipe(Effect.provide(embeddingsAt(`${peer.baseUrl}${path}`)))

      const flooded = yield* embed("/v1")
      assert.isTrue(Either.isLeft(flooded))
      if (Either.isLeft(flooded)) {
        assert.include(flooded.left.message, "refused")
        assert.isFalse(flooded.left.retryable)
      }
      assert.isBelow(peer.sent(), MAX_STREAM_BYTES + 8 * 1024 * 1024, "the rest of the answer was not read")

      const before = peer.sent()
      const failed = yield* embed("/error")
      assert.isTrue(Either.isLeft(failed))
      if (Either.isLeft(failed)) assert.include(failed.left.message, "answered 500")
      // Four attempts (5xx is retried), each stopped after its first 64 KiB (plus socket buffers).
      assert.isBelow(peer.sent() - before, 4 * 8 * 1024 * 1024)
    }), 60_000)
})

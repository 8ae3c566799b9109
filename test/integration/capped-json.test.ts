import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { fetch as undiciFetch } from "undici"
import { cappedJson, MAX_TOKEN_ANSWER_BYTES } from "../../platform/outbound/CappedJson.js"
import { flood, hostileServer } from "../support/Flood.js"

/** A token endpoint: `/flood` answers 50 MB of JSON-looking text, `/ok` a token, `/junk` not JSON. */
const tokenEndpoint = hostileServer((req, res, count) => {
  req.resume()
  res.writeHead(200, { "content-type": "application/json" })
  if (req.url === "/ok") return void res.end(JSON.stringify({ access_token: "t", token_type: "bearer" }))
  if (req.url === "/junk") return void res.end("<html>")
  res.write("{\"access_token\":\"")
  void flood(res, 50 * 1024 * 1024, () => "a".repeat(64 * 1024), count)
})

describe("token endpoint answers are read within a cap", () => {
  it.scopedLive("a 50 MB answer is refused after 1 MiB and not read further; a token parses; junk is undefined", () =>
    Effect.gen(function*() {
      const peer = yield* tokenEndpoint
      const read = (path: string) =>
        Effect.either(Effect.tryPromise(() => undiciFetch(`${peer.baseUrl}${path}`).then((r) => cappedJson(r, MAX_TOKEN_ANSWER_BYTES))))
      const flooded = yield* read("/flood")
      assert.isTrue(Either.isLeft(flooded))
      if (Either.isLeft(flooded)) assert.include(String(flooded.left.cause), "larger than 1048576 bytes")
      yield* Effect.sleep("200 millis")
      assert.isBelow(peer.sent(), 16 * 1024 * 1024, "the peer could not push much past the cap")
      assert.deepStrictEqual(yield* read("/ok"), Either.right({ access_token: "t", token_type: "bearer" }))
      assert.deepStrictEqual(yield* read("/junk"), Either.right(undefined))
    }), 30_000)
})

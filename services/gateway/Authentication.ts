import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Authentication } from "../../schemas/Security.js"
import { AuthClient } from "./AuthClient.js"

/**
 * Both declared schemes run the same check, which reads the raw headers itself: the built-in
 * bearer decoder neither checks the `Bearer ` prefix nor knows the no-fallback rule.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const auth = yield* AuthClient
    const check = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const url = new URL(request.url, "http://gateway")
      return yield* auth.verify({
        authorization: request.headers.authorization,
        apiKey: request.headers["x-api-key"],
        method: request.method,
        path: url.pathname
      })
    })
    return { bearer: () => check, apiKey: () => check }
  })
)

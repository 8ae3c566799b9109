import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"
import { ACCESS_COOKIE, csrfFailure } from "../../platform/BrowserSession.js"
import { AppConfig } from "../../platform/Config.js"
import { Forbidden, forbidden } from "../../schemas/Errors.js"
import { Authentication } from "../../schemas/Security.js"
import { AuthClient } from "./AuthClient.js"
import { allowedRoles } from "./Routes.js"

/** Bodies above this are not decoded for a role the endpoint does not serve. */
const LARGE_BODY_BYTES = 64 * 1024

/**
 * Both declared schemes run the same check, which reads the raw headers itself: the built-in
 * bearer decoder neither checks the `Bearer ` prefix nor knows the no-fallback rule. With no
 * credential header, a browser's `access_token` cookie is promoted to the Bearer credential; an
 * unsafe method authenticated that way must pass the origin and double-submit checks (403).
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const auth = yield* AuthClient
    const config = yield* AppConfig
    const check = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const url = new URL(request.url, "http://gateway")
      const apiKey = request.headers["x-api-key"]
      const cookie = request.cookies[ACCESS_COOKIE]
      let authorization = request.headers.authorization
      if (authorization === undefined && (apiKey === undefined || apiKey === "") && cookie !== undefined && cookie !== "") {
        const failure = csrfFailure(config, request)
        if (failure !== undefined) return yield* new Forbidden({ code: "CSRF_CHECK_FAILED", message: failure })
        authorization = `Bearer ${cookie}`
      }
      const principal = yield* auth.verify({ authorization, apiKey, method: request.method, path: url.pathname, origin: request.headers.origin })
      // A large body is not read for a caller the endpoint would refuse anyway.
      const roles = Number(request.headers["content-length"] ?? "0") > LARGE_BODY_BYTES
        ? allowedRoles(request.method, url.pathname)
        : undefined
      if (roles !== undefined && !roles.includes(principal.role)) return yield* forbidden("Your role does not allow this operation")
      return principal
    })
    return { bearer: () => check, apiKey: () => check }
  })
)

import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, Unauthorized } from "./Errors.js"
import { CurrentPrincipal } from "./Principal.js"

/**
 * Exactly one credential per request: an `Authorization: Bearer <JWT>` header, or, only when
 * no Authorization header is present, `X-API-Key`.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Schema.Union(Unauthorized, Forbidden),
  provides: CurrentPrincipal,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "Access token from /api/v1/auth/login")
    ),
    apiKey: HttpApiSecurity.apiKey({ key: "X-API-Key", in: "header" }).pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "Tenant API key; only read when no Authorization header is sent")
    )
  }
}) {}

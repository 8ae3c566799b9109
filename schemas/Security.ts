import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import { Forbidden, Unauthorized } from "./Errors.js"
import { CurrentPrincipal } from "./Principal.js"
import { BUILDER_ROLES, type Role } from "./Roles.js"

/**
 * Exactly one credential per request: an `Authorization: Bearer <JWT>` header, or, only when
 * no Authorization header is present, `X-API-Key`.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Schema.Union(Unauthorized, Forbidden),
  provides: CurrentPrincipal,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "Access token from /api/v1/auth/login. Browsers may instead send the access_token cookie set at sign-in " +
          "(no credential header); unsafe methods then need an allowed Origin and X-CSRF-Token equal to the csrf_token cookie."
      )
    ),
    apiKey: HttpApiSecurity.apiKey({ key: "X-API-Key", in: "header" }).pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "Tenant API key; only read when no Authorization header is sent")
    )
  }
}) {}

/**
 * The roles an endpoint serves. The gateway refuses any other role (403) before it reads and
 * decodes a large body, so that a caller who may not write cannot make the server parse, validate
 * and echo megabytes; the service still checks the role (and visibility) itself.
 */
export class AllowedRoles extends Context.Tag("AllowedRoles")<AllowedRoles, ReadonlyArray<Role>>() {}

export const BUILDERS = BUILDER_ROLES
export const PROVIDER_ADMINS: ReadonlyArray<Role> = ["env_admin", "system_admin", "builder_admin"]

import { Context, Effect, Schema } from "effect"
import { WidgetScope } from "./Auth.js"
import { ApiKeyId, TenantId, UserId } from "./Ids.js"
import { Role } from "./Roles.js"
import { TenantSettings } from "./Tenant.js"

export const AuthMethod = Schema.Literal("jwt", "api_key")

/** Who is calling: resolved once per request from exactly one credential. */
export const Principal = Schema.Struct({
  userId: UserId,
  tenantId: TenantId,
  email: Schema.String,
  role: Role,
  authMethod: AuthMethod,
  apiKeyId: Schema.optional(ApiKeyId),
  /** With an API key: a `user` key acts as its owner; a `system` key is a service principal. */
  apiKeyType: Schema.optional(Schema.Literal("user", "system")),
  /** A chat widget key's scope: the handlers of the widget's routes keep it to these AI Employees. */
  widget: Schema.optional(WidgetScope),
  /** Authentication methods behind a JWT (pwd, otp, sso, totp). */
  amr: Schema.Array(Schema.String),
  settings: TenantSettings,
  /**
   * The caller as their membership reads, taken in the credential's own read: lets
   * `GET /users/me` answer without reading the same rows again.
   */
  profile: Schema.optional(Schema.Struct({
    name: Schema.String,
    /** The membership's role (a system key acts with its own `role` above). */
    role: Role,
    status: Schema.Literal("active", "disabled"),
    totp_enabled: Schema.Boolean
  }))
})
export type Principal = typeof Principal.Type

export class CurrentPrincipal extends Context.Tag("CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/** How a handler acts for its caller: every handler reaches the principal this one way. */
export const asCaller = <A, E, R>(f: (principal: Principal) => Effect.Effect<A, E, R>) => Effect.flatMap(CurrentPrincipal, f)

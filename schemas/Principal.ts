import { Context, Schema } from "effect"
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
  /** Authentication methods behind a JWT (pwd, otp, sso, totp). */
  amr: Schema.Array(Schema.String),
  settings: TenantSettings
})
export type Principal = typeof Principal.Type

export class CurrentPrincipal extends Context.Tag("CurrentPrincipal")<CurrentPrincipal, Principal>() {}

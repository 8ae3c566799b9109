import { Effect } from "effect"
import { forbidden } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import type { Role } from "../../schemas/Roles.js"
import { isAtLeast } from "../../schemas/Roles.js"

/** Who may administer users, memberships and the audit trail of a tenant. */
export const USER_ADMINS: ReadonlyArray<Role> = ["env_admin", "system_admin", "user_admin"]
export const GROUP_ADMINS: ReadonlyArray<Role> = ["env_admin", "system_admin", "user_admin"]
/** Admins for system API keys and tenant settings. */
export const TENANT_ADMINS: ReadonlyArray<Role> = ["env_admin", "system_admin"]

export const requireRole = (principal: Principal, allowed: ReadonlyArray<Role>) =>
  allowed.includes(principal.role) ? Effect.void : Effect.fail(forbidden())

export const requireEnvAdmin = (principal: Principal) => requireRole(principal, ["env_admin"])

/** Nobody grants a role above their own. */
export const requireCanGrant = (principal: Principal, role: Role) =>
  isAtLeast(principal.role, role)
    ? Effect.void
    : Effect.fail(forbidden(`A ${principal.role} cannot grant the ${role} role`))

export const requireJwt = (principal: Principal) =>
  principal.authMethod === "jwt" ? Effect.void : Effect.fail(forbidden("This operation requires a signed-in user (JWT)"))

/** `no_access` members can only read their own profile and tenants. */
export const requireAccess = (principal: Principal) =>
  principal.role === "no_access" ? Effect.fail(forbidden("This account has no access to this workspace")) : Effect.void

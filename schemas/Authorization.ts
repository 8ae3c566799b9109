import { Effect } from "effect"
import { forbidden } from "./Errors.js"
import type { Principal } from "./Principal.js"
import { BUILDER_ROLES, isAtLeast, type Role } from "./Roles.js"

/**
 * The one authorization module (00-decisions section 2): the roles' order is `Roles` (highest
 * first, in Roles.ts); here are who may do what, per capability, and the checks every handler
 * uses. A capability is a list of roles, not a rank, where the matrix is not monotonic
 * (`user_admin` ranks above `builder` but cannot build).
 */
export const Capabilities = {
  /** Users, memberships and the audit trail of a tenant. */
  administerUsers: ["env_admin", "system_admin", "user_admin"],
  /** User groups and their members. */
  administerGroups: ["env_admin", "system_admin", "user_admin"],
  /** System API keys, SSO and tenant settings. */
  administerTenant: ["env_admin", "system_admin"],
  /** Creating, editing, publishing AI Employees and their versions, agents and knowledge bases. */
  build: BUILDER_ROLES,
  /** Cancelling any run; the tenant's model providers. */
  administerRuns: ["env_admin", "system_admin", "builder_admin"],
  /** Authoring catalog entries and the lifecycle of MCP servers. */
  administerIntegrations: ["env_admin", "system_admin", "builder_admin"],
  /** Every HITL request of the tenant, whoever it is assigned to. */
  answerAnyHitl: ["env_admin", "system_admin"]
} as const satisfies Record<string, ReadonlyArray<Role>>

export type Capability = keyof typeof Capabilities

export const USER_ADMINS: ReadonlyArray<Role> = Capabilities.administerUsers
export const GROUP_ADMINS: ReadonlyArray<Role> = Capabilities.administerGroups
export const TENANT_ADMINS: ReadonlyArray<Role> = Capabilities.administerTenant
export const BUILDERS: ReadonlyArray<Role> = Capabilities.build
export const RUN_ADMINS: ReadonlyArray<Role> = Capabilities.administerRuns
export const HITL_ADMINS: ReadonlyArray<Role> = Capabilities.answerAnyHitl
export const INTEGRATION_ADMINS: ReadonlyArray<Role> = Capabilities.administerIntegrations

export const can = (principal: Principal, capability: Capability): boolean => (Capabilities[capability] as ReadonlyArray<Role>).includes(principal.role)

export const requireRole = (principal: Principal, allowed: ReadonlyArray<Role>, message?: string) =>
  allowed.includes(principal.role) ? Effect.void : Effect.fail(forbidden(message))

export const requireEnvAdmin = (principal: Principal) => requireRole(principal, ["env_admin"])

/** Nobody grants a role above their own. */
export const requireCanGrant = (principal: Principal, role: Role) =>
  isAtLeast(principal.role, role)
    ? Effect.void
    : Effect.fail(forbidden(`A ${principal.role} cannot grant the ${role} role`))

export const requireJwt = (principal: Principal) =>
  principal.authMethod === "jwt" ? Effect.void : Effect.fail(forbidden("This operation requires a signed-in user (JWT)"))

/** `no_access` members can only read their own profile and tenants. */
export const requireAccess = (principal: Principal, what = "this workspace") =>
  principal.role === "no_access" ? Effect.fail(forbidden(`This account has no access to ${what}`)) : Effect.void

/** Reading AI Employees, runs, agents and knowledge: everyone but `no_access`. */
export const requireReader = (principal: Principal) => requireAccess(principal, "AI Employees")

export const requireBuilder = (principal: Principal) => requireRole(principal, BUILDERS, "Building and publishing AI Employees needs a builder role")

/** A service principal: a system API key (a user's own key acts as that user, nothing more). */
export const isServicePrincipal = (principal: Principal) => principal.authMethod === "api_key" && principal.apiKeyType === "system"

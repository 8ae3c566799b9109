import { Schema } from "effect"

/** Highest first. */
export const Roles = [
  "env_admin",
  "system_admin",
  "builder_admin",
  "user_admin",
  "builder",
  "user",
  "no_access"
] as const
export const Role = Schema.Literal(...Roles)
export type Role = typeof Role.Type

export const roleRank = (role: Role): number => Roles.length - Roles.indexOf(role)

export const isAtLeast = (role: Role, floor: Role): boolean => roleRank(role) >= roleRank(floor)

/** The roles a member of `role` may grant, and the members they may edit: their own and below. */
export const grantableBy = (role: Role): ReadonlyArray<Role> => Roles.filter((r) => isAtLeast(role, r))

/** Creating, editing, publishing and version writes (00-decisions section 2). */
export const BUILDER_ROLES: ReadonlyArray<Role> = ["env_admin", "system_admin", "builder_admin", "builder"]

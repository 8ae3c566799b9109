import { Effect } from "effect"
import { forbidden } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { BUILDER_ROLES, type Role } from "../../schemas/Roles.js"
import type { WorkflowRow } from "./WorkflowsRepo.js"

/** Creating, editing, publishing and version writes. */
export const BUILDERS: ReadonlyArray<Role> = BUILDER_ROLES

export const requireReader = (principal: Principal) =>
  principal.role === "no_access" ? Effect.fail(forbidden("This account has no access to AI Employees")) : Effect.void

export const requireBuilder = (principal: Principal) =>
  BUILDERS.includes(principal.role)
    ? Effect.void
    : Effect.fail(forbidden("Building and publishing AI Employees needs a builder role"))

/** An adopted AI Employee runs on its own history; the adopting workspace cannot change it. */
export const requireEditable = (row: WorkflowRow) =>
  row.adopted_at === null
    ? Effect.void
    : Effect.fail(forbidden("This AI Employee was adopted from another workspace and cannot be edited here"))

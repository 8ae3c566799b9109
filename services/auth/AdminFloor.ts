import type { UserId } from "../../schemas/Ids.js"
import { isAtLeast, type Role, roleRank } from "../../schemas/Roles.js"

/** An active member of a tenant who administers its users (`USER_ADMINS`, what `UsersRepo` reads). */
export interface ActiveAdmin {
  readonly user_id: UserId
  readonly role: Role
}

/** What a membership change does to its member: removed, or its role and status set. */
export type MembershipChange = "remove" | { readonly role?: Role | undefined; readonly status?: "active" | "disabled" | undefined }

/**
 * A tenant keeps at least one active member at the highest admin role it has: nobody can grant a
 * role above their own, so once its last holder is demoted, disabled or removed nobody in the
 * tenant can give it back (the default tenant's last env_admin would take creating tenants with
 * it). The role such a change would take away, or undefined when the change may go ahead.
 */
export const roleLeftWithoutHolder = (admins: ReadonlyArray<ActiveAdmin>, userId: UserId, change: MembershipChange): Role | undefined => {
  const target = admins.find((a) => a.user_id === userId)
  if (target === undefined) return undefined
  const top = admins.reduce<Role>((best, a) => (roleRank(a.role) > roleRank(best) ? a.role : best), target.role)
  if (target.role !== top || admins.filter((a) => a.role === top).length > 1) return undefined
  const keeps = change !== "remove" && change.status !== "disabled" && (change.role === undefined || isAtLeast(change.role, top))
  return keeps ? undefined : top
}

import { Context, type Effect, type Option } from "effect"
import type { User } from "../../schemas/Auth.js"
import type { Forbidden, Unauthorized } from "../../schemas/Errors.js"
import type { TenantId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import type { Role } from "../../schemas/Roles.js"

/** What other services may ask of auth's people: the members of the caller's tenant and who a token is. */
export class People extends Context.Tag("ports/People")<People, {
  readonly member: (principal: Principal, userId: string) => Effect.Effect<Option.Option<User>>
  readonly memberByEmail: (principal: Principal, email: string) => Effect.Effect<Option.Option<User>>
  /** A member of a tenant by id, for work done on no one's behalf (a run's starter). */
  readonly memberInTenant: (tenantId: TenantId, userId: string) => Effect.Effect<Option.Option<User>>
  /** The principal an access token stands for, with the gateway's own checks. */
  readonly principalOf: (accessToken: string) => Effect.Effect<Principal, Unauthorized | Forbidden>
  /** The user groups the principal belongs to in its tenant: directly, or through a group nested in them. */
  readonly groupsOf: (principal: Principal) => Effect.Effect<ReadonlyArray<string>>
  /** Which of these emails (lower-cased) belong to active members of the tenant. */
  readonly activeMemberEmails: (tenantId: TenantId, emails: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
  /** The roles held by the tenant's active members. */
  readonly activeRoles: (tenantId: TenantId) => Effect.Effect<ReadonlyArray<Role>>
  /** Whether the principal is a group admin of this group (the membership flag is_group_admin). */
  readonly administersGroup: (principal: Principal, groupId: string) => Effect.Effect<boolean>
  /** Which of these group ids exist in the tenant. */
  readonly existingGroups: (tenantId: TenantId, groupIds: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
  /** Whether the workspace exists and the principal administers it (an env_admin administers every workspace). */
  readonly administers: (principal: Principal, tenantId: TenantId) => Effect.Effect<boolean>
}>() {}

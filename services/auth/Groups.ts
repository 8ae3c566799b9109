import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { Audit } from "../../platform/Audit.js"
import { traced } from "../../platform/Traced.js"
import { GROUP_ADMINS, requireAccess, requireRole } from "../../schemas/Authorization.js"
import type { Forbidden } from "../../schemas/Errors.js"
import { conflict, NotFound, notFound, unprocessable } from "../../schemas/Errors.js"
import type { GroupId, UserId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOf } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { type GroupRow, GroupsRepo } from "./GroupsRepo.js"
import { UsersRepo } from "./UsersRepo.js"

/** User groups, nested; visible only when the tenant flag `user_groups_enabled` is on. */
export class Groups extends Effect.Service<Groups>()("Groups", {
  dependencies: [GroupsRepo.Default, UsersRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* GroupsRepo
    const users = yield* UsersRepo
    const audit = yield* Audit

    const enabled = (principal: Principal): Effect.Effect<void, NotFound> =>
      principal.settings.user_groups_enabled
        ? Effect.void
        : Effect.fail(new NotFound({ code: "GROUPS_DISABLED", message: "User groups are not enabled for this tenant" }))

    // Visibility before capability: what the caller cannot see is 404 whatever their role.
    const locate = (principal: Principal, id: string): Effect.Effect<GroupRow, NotFound> =>
      enabled(principal).pipe(
        Effect.zipRight(repo.get(principal, id)),
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("Group")), onSome: Effect.succeed }))
      )

    const find = (principal: Principal, id: string): Effect.Effect<GroupRow, NotFound | Forbidden> =>
      locate(principal, id).pipe(Effect.tap(() => requireAccess(principal)))

    const checkParent = (principal: Principal, groupId: string | undefined, parentId: string | null | undefined) =>
      Effect.gen(function*() {
        if (parentId === null || parentId === undefined) return
        if (Option.isNone(yield* repo.get(principal, parentId))) return yield* notFound("Parent group")
        if (groupId !== undefined && (yield* repo.ancestors(principal, parentId)).includes(groupId)) {
          return yield* unprocessable("GROUP_CYCLE", "A group cannot be nested inside itself or its descendants")
        }
      })

    const create = (principal: Principal, input: { name: string; parent_group_id?: GroupId | null | undefined }) =>
      Effect.gen(function*() {
        yield* enabled(principal)
        yield* checkParent(principal, undefined, input.parent_group_id)
        yield* requireRole(principal, GROUP_ADMINS)
        const group = yield* repo.insert(principal, {
          id: randomUUID(),
          name: input.name,
          parent_group_id: input.parent_group_id ?? null
        })
        if (Option.isNone(group)) return yield* conflict("GROUP_NAME_TAKEN", `A group named '${input.name}' exists`)
        yield* audit.record(principal, { action: "group.created", resourceType: "group", resourceId: group.value.id })
        return group.value
      })

    const list = (principal: Principal, params: PageParams) =>
      enabled(principal).pipe(
        Effect.zipRight(requireAccess(principal)),
        Effect.zipRight(repo.list(principal, params)),
        Effect.map(({ items, total }) => pageOf(params, items, total))
      )

    const update = (principal: Principal, id: GroupId, patch: { name?: string | undefined; parent_group_id?: GroupId | null | undefined }) =>
      Effect.gen(function*() {
        yield* find(principal, id)
        yield* checkParent(principal, id, patch.parent_group_id)
        yield* requireRole(principal, GROUP_ADMINS)
        const result = yield* repo.update(principal, id, patch)
        if (result === "name_taken") return yield* conflict("GROUP_NAME_TAKEN", "A group with that name exists")
        yield* audit.record(principal, { action: "group.updated", resourceType: "group", resourceId: id, details: patch })
        return yield* Option.match(result, { onNone: () => Effect.fail(notFound("Group")), onSome: Effect.succeed })
      })

    const remove = (principal: Principal, id: GroupId) =>
      Effect.gen(function*() {
        yield* find(principal, id)
        yield* requireRole(principal, GROUP_ADMINS)
        yield* repo.remove(principal, id)
        yield* audit.record(principal, { action: "group.deleted", resourceType: "group", resourceId: id })
      })

    const members = (principal: Principal, id: GroupId, params: PageParams) =>
      find(principal, id).pipe(
        Effect.zipRight(repo.members(principal, id, params)),
        Effect.map(({ items, total }) => pageOf(params, items, total))
      )

    /** Group admins may manage the members of their own group. */
    const requireMemberAdmin = (principal: Principal, id: GroupId) =>
      GROUP_ADMINS.includes(principal.role)
        ? Effect.void
        : repo.isGroupAdmin(principal, id).pipe(
          Effect.flatMap((ok) => (ok ? Effect.void : requireRole(principal, GROUP_ADMINS)))
        )

    const addMember = (principal: Principal, id: GroupId, input: { user_id: UserId; is_group_admin: boolean }) =>
      Effect.gen(function*() {
        yield* locate(principal, id)
        if (Option.isNone(yield* users.member(principal, input.user_id))) return yield* notFound("User")
        yield* requireAccess(principal)
        yield* requireMemberAdmin(principal, id)
        const member = yield* repo.upsertMember(principal, id, input.user_id, input.is_group_admin)
        yield* audit.record(principal, {
          action: "group.member_added",
          resourceType: "group",
          resourceId: id,
          details: { user_id: input.user_id, is_group_admin: input.is_group_admin }
        })
        return member
      })

    const removeMember = (principal: Principal, id: GroupId, userId: UserId) =>
      Effect.gen(function*() {
        yield* find(principal, id)
        yield* requireMemberAdmin(principal, id)
        if (!(yield* repo.removeMember(principal, id, userId))) return yield* notFound("Group member")
        yield* audit.record(principal, {
          action: "group.member_removed",
          resourceType: "group",
          resourceId: id,
          details: { user_id: userId }
        })
      })

    return traced("Groups", { create, list, get: find, update, remove, members, addMember, removeMember })
  })
}) {}

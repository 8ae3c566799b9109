import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { GroupId, TenantId, UserId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"

export const GroupRow = Schema.Struct({
  id: GroupId,
  tenant_id: TenantId,
  name: Schema.String,
  parent_group_id: Schema.NullOr(GroupId),
  member_count: Schema.Number,
  created_at: Timestamp
})
export type GroupRow = typeof GroupRow.Type

const groupRows = decodeRows("user_groups", GroupRow)

export const MemberRow = Schema.Struct({
  group_id: GroupId,
  user_id: UserId,
  email: Schema.String,
  name: Schema.String,
  is_group_admin: Schema.Boolean,
  created_at: Timestamp
})
export type MemberRow = typeof MemberRow.Type

const memberRows = decodeRows("group_members", MemberRow)

export class GroupsRepo extends Effect.Service<GroupsRepo>()("GroupsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const select = sql`SELECT g.id, g.tenant_id, g.name, g.parent_group_id, g.created_at,
        (SELECT count(*)::int FROM group_members gm WHERE gm.group_id = g.id) AS member_count
      FROM user_groups g`

    const get = (scope: Principal, id: string) =>
      sql`${select} WHERE g.tenant_id = ${scope.tenantId} AND g.id = ${id}`.pipe(groupRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const list = (scope: Principal, params: PageParams) =>
      Effect.all([
        sql`${select} WHERE g.tenant_id = ${scope.tenantId} ORDER BY g.name, g.id
          LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(groupRows),
        sql`SELECT count(*)::int AS total FROM user_groups WHERE tenant_id = ${scope.tenantId}`.pipe(
          decodeRows("user_groups", Schema.Struct({ total: Schema.Number }))
        )
      ]).pipe(Effect.map(([items, [c]]) => ({ items, total: c?.total ?? 0 })), Effect.orDie)

    /** Inserts, or returns none when the name is taken in this tenant. */
    const insert = (scope: Principal, group: { id: string; name: string; parent_group_id: string | null }) =>
      sql`INSERT INTO user_groups ${sql.insert({ ...group, tenant_id: scope.tenantId })}
        ON CONFLICT (tenant_id, name) DO NOTHING RETURNING id`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.succeedNone : get(scope, group.id)))
      )

    const update = (scope: Principal, id: string, patch: { name?: string | undefined; parent_group_id?: string | null | undefined }) =>
      sql`UPDATE user_groups SET
          name = ${patch.name === undefined ? sql`name` : patch.name},
          parent_group_id = ${patch.parent_group_id === undefined ? sql`parent_group_id` : patch.parent_group_id}
        WHERE tenant_id = ${scope.tenantId} AND id = ${id}`.pipe(
        Effect.zipRight(get(scope, id)),
        Effect.catchTag("SqlError", (e) => (e.cause as { code?: string } | undefined)?.code === "23505" ? Effect.succeed("name_taken" as const) : Effect.die(e))
      )

    /** Ids of `id` and every group above it. */
    const ancestors = (scope: Principal, id: string) =>
      sql`WITH RECURSIVE up(id, parent_group_id, depth) AS (
          SELECT id, parent_group_id, 0 FROM user_groups WHERE tenant_id = ${scope.tenantId} AND id = ${id}
          UNION ALL
          SELECT g.id, g.parent_group_id, up.depth + 1 FROM user_groups g JOIN up ON g.id = up.parent_group_id
          WHERE g.tenant_id = ${scope.tenantId} AND up.depth < 1000)
        SELECT id FROM up`.pipe(decodeRows("user_groups", Schema.Struct({ id: Schema.String }))).pipe(Effect.map((rows) => rows.map((r) => r.id)), Effect.orDie)

    const remove = (scope: Principal, id: string) =>
      sql`DELETE FROM user_groups WHERE tenant_id = ${scope.tenantId} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    const members = (scope: Principal, groupId: string, params: PageParams) =>
      Effect.all([
        sql`SELECT gm.group_id, gm.user_id, u.email, u.name, gm.is_group_admin, gm.created_at
          FROM group_members gm JOIN users u ON u.id = gm.user_id
          WHERE gm.tenant_id = ${scope.tenantId} AND gm.group_id = ${groupId}
          ORDER BY gm.created_at, gm.user_id LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(memberRows),
        sql`SELECT count(*)::int AS total FROM group_members
          WHERE tenant_id = ${scope.tenantId} AND group_id = ${groupId}`.pipe(decodeRows("group_members", Schema.Struct({ total: Schema.Number })))
      ]).pipe(Effect.map(([items, [c]]) => ({ items, total: c?.total ?? 0 })), Effect.orDie)

    const upsertMember = (scope: Principal, groupId: string, userId: string, isAdmin: boolean) =>
      sql`WITH up AS (
          INSERT INTO group_members ${sql.insert({ group_id: groupId, user_id: userId, tenant_id: scope.tenantId, is_group_admin: isAdmin })}
          ON CONFLICT (group_id, user_id) DO UPDATE SET is_group_admin = EXCLUDED.is_group_admin
          RETURNING *)
        SELECT up.group_id, up.user_id, u.email, u.name, up.is_group_admin, up.created_at
        FROM up JOIN users u ON u.id = up.user_id`.pipe(memberRows).pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    const removeMember = (scope: Principal, groupId: string, userId: string) =>
      sql`DELETE FROM group_members WHERE tenant_id = ${scope.tenantId} AND group_id = ${groupId}
        AND user_id = ${userId} RETURNING user_id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)

    const isGroupAdmin = (scope: Principal, groupId: string) =>
      sql`SELECT 1 FROM group_members WHERE tenant_id = ${scope.tenantId} AND group_id = ${groupId}
        AND user_id = ${scope.userId} AND is_group_admin`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)

    return traced("GroupsRepo", { get, list, insert, update, ancestors, remove, members, upsertMember, removeMember, isGroupAdmin })
  })
}) {}

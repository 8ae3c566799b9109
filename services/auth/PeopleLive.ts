import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { Role } from "../../schemas/Roles.js"
import { People } from "../ports/People.js"
import { Credentials } from "./Credentials.js"
import { UsersRepo } from "./UsersRepo.js"

/** Auth's side of the people port. */
export const PeopleLive = Layer.effect(
  People,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const users = yield* UsersRepo
    const credentials = yield* Credentials
    return {
      member: users.member,
      administersGroup: (principal, groupId) =>
        sql`SELECT 1 FROM group_members WHERE tenant_id = ${principal.tenantId} AND group_id = ${groupId}
          AND user_id = ${principal.userId} AND is_group_admin`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),
      memberInTenant: users.memberInTenant,
      memberByEmail: (principal, email) =>
        users.byEmail(email).pipe(
          Effect.flatMap((u) => Option.isSome(u) ? users.member(principal, u.value.id) : Effect.succeed(Option.none()))
        ),
      principalOf: (accessToken) => credentials.authenticate({ authorization: `Bearer ${accessToken}`, method: "GET", path: "/" }),
      // Effective membership: a member of a nested group is a member of every group above it.
      groupsOf: (principal) =>
        sql`WITH RECURSIVE effective AS (
            SELECT group_id AS id FROM group_members WHERE tenant_id = ${principal.tenantId} AND user_id = ${principal.userId}
            UNION
            SELECT g.parent_group_id FROM user_groups g JOIN effective e ON g.id = e.id
            WHERE g.tenant_id = ${principal.tenantId} AND g.parent_group_id IS NOT NULL
          ) SELECT id FROM effective`.pipe(decodeRows("group_members", Schema.Struct({ id: Schema.String }))).pipe(
          Effect.map((rows) => rows.map((r) => r.id)),
          Effect.orDie
        ),
      activeMemberEmails: (tenantId, emails) =>
        emails.length === 0
          ? Effect.succeed(new Set<string>())
          : sql`SELECT lower(u.email) AS email FROM memberships m JOIN users u ON u.id = m.user_id
              WHERE m.tenant_id = ${tenantId} AND m.status = 'active' AND lower(u.email) IN ${sql.in(emails.map((e) => e.toLowerCase()))}`.pipe(
            decodeRows("memberships", Schema.Struct({ email: Schema.String }))
          )
            .pipe(Effect.map((rows) => new Set(rows.map((r) => r.email))), Effect.orDie),
      activeRoles: (tenantId) =>
        sql`SELECT DISTINCT role FROM memberships WHERE tenant_id = ${tenantId} AND status = 'active'`.pipe(
          decodeRows("memberships", Schema.Struct({ role: Role }))
        ).pipe(
          Effect.map((rows) => rows.map((r) => r.role)),
          Effect.orDie
        ),
      existingGroups: (tenantId, groupIds) =>
        groupIds.length === 0
          ? Effect.succeed(new Set<string>())
          : sql`SELECT id FROM user_groups WHERE tenant_id = ${tenantId} AND id IN ${sql.in([...groupIds])}`.pipe(
            decodeRows("user_groups", Schema.Struct({ id: Schema.String }))
          ).pipe(
            Effect.map((rows) => new Set(rows.map((r) => r.id))),
            Effect.orDie
          ),
      administers: (principal, tenantId) =>
        sql`SELECT
            EXISTS (SELECT 1 FROM tenants WHERE id = ${tenantId}) AND (${principal.role === "env_admin"} OR EXISTS (
              SELECT 1 FROM memberships WHERE tenant_id = ${tenantId} AND user_id = ${principal.userId}
                AND status = 'active' AND role IN ('env_admin', 'system_admin'))) AS ok`.pipe(decodeRows("tenants", Schema.Struct({ ok: Schema.Boolean })))
          .pipe(
            Effect.map((rows) => rows[0]?.ok === true),
            Effect.orDie
          )
    }
  })
)

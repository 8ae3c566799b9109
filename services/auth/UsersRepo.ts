import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option, Schema } from "effect"
import { PreparedSql } from "../../platform/PreparedSql.js"
import { BigIntText, decodeRows, JsonObjectOf, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { User } from "../../schemas/Auth.js"
import { USER_ADMINS } from "../../schemas/Authorization.js"
import { TenantId, UserId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { Role } from "../../schemas/Roles.js"
import type { TenantSettings } from "../../schemas/Tenant.js"
import { defaultTenantSettings } from "../../schemas/Tenant.js"
import { type MembershipChange, roleLeftWithoutHolder } from "./AdminFloor.js"
import { AuthReads } from "./AuthReads.js"

export const UserRow = Schema.Struct({
  id: UserId,
  email: Schema.String,
  name: Schema.String,
  password_hash: Schema.NullOr(Schema.String),
  totp_secret_enc: Schema.NullOr(Schema.String),
  totp_enabled: Schema.Boolean,
  totp_last_step: Schema.NullOr(BigIntText)
})
export type UserRow = typeof UserRow.Type

export const MembershipRow = Schema.Struct({
  tenant_id: TenantId,
  user_id: UserId,
  role: Role,
  status: Schema.Literal("active", "disabled"),
  tenant_name: Schema.String,
  tenant_slug: Schema.String,
  settings: JsonObjectOf<Partial<TenantSettings>>(),
  created_at: Timestamp,
  last_login_at: Schema.NullOr(Timestamp)
})
export type MembershipRow = typeof MembershipRow.Type

const userRows = decodeRows("users", UserRow)
const membershipRows = decodeRows("memberships", MembershipRow)
const memberRows = decodeRows("memberships", User)
const activeAdminRows = decodeRows("memberships", Schema.Struct({ user_id: UserId, role: Role }))
const userMembershipRows = decodeRows("memberships", Schema.extend(MembershipRow, UserRow.pipe(Schema.omit("id"))))

/** A membership change: written, or refused because it would take away the tenant's last holder of its highest admin role. */
export type AdminGuarded<A> = { readonly _tag: "LastAdmin"; readonly role: Role } | { readonly _tag: "Written"; readonly value: A }
const lastAdmin = <A>(role: Role): AdminGuarded<A> => ({ _tag: "LastAdmin", role })
const written = <A>(value: A): AdminGuarded<A> => ({ _tag: "Written", value })

export const settingsOf = (m: MembershipRow): TenantSettings => ({ ...defaultTenantSettings, ...m.settings })

/** Read on every request authenticated by a JWT: a prepared statement. */
const WITH_MEMBERSHIP = `SELECT m.tenant_id, m.user_id, m.role, m.status, m.created_at, m.last_login_at,
    t.name AS tenant_name, t.slug AS tenant_slug, t.settings,
    u.email, u.name, u.password_hash, u.totp_secret_enc, u.totp_enabled, u.totp_last_step
  FROM memberships m JOIN tenants t ON t.id = m.tenant_id JOIN users u ON u.id = m.user_id
  WHERE m.tenant_id = $1 AND m.user_id = $2`

const memberSelect = (sql: SqlClient.SqlClient) =>
  sql`SELECT u.id, m.tenant_id, u.email, u.name, m.role, m.status
      FROM memberships m JOIN users u ON u.id = m.user_id`

/**
 * Identities are global (one email, one user); everything a tenant sees of them goes through
 * its memberships, scoped by the caller's principal.
 */
export class UsersRepo extends Effect.Service<UsersRepo>()("UsersRepo", {
  dependencies: [AuthReads.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const prepared = yield* PreparedSql
    const authReads = yield* AuthReads
    const signedIn = authReads.cache<Option.Option<{ user: UserRow; membership: MembershipRow }>>()
    const changed = <A, E, R>(write: Effect.Effect<A, E, R>) => Effect.tap(write, () => authReads.changed)
    const first = <A>(rows: ReadonlyArray<A>) => Option.fromNullable(rows[0])

    const byEmail = (email: string) => sql`SELECT * FROM users WHERE lower(email) = lower(${email})`.pipe(userRows).pipe(Effect.map(first), Effect.orDie)

    const byId = (id: string) => sql`SELECT * FROM users WHERE id = ${id}`.pipe(userRows).pipe(Effect.map(first), Effect.orDie)

    const insertUser = (user: { id: string; email: string; name: string; password_hash: string | null }) =>
      sql`INSERT INTO users ${sql.insert(user)}
        ON CONFLICT (lower(email)) DO NOTHING RETURNING *`.pipe(userRows).pipe(Effect.map(first), Effect.orDie)

    const membershipSelect = sql`SELECT m.tenant_id, m.user_id, m.role, m.status, m.created_at, m.last_login_at,
        t.name AS tenant_name, t.slug AS tenant_slug, t.settings
      FROM memberships m JOIN tenants t ON t.id = m.tenant_id`

    const membership = (tenantId: string, userId: string) =>
      sql`${membershipSelect} WHERE m.tenant_id = ${tenantId} AND m.user_id = ${userId}`.pipe(membershipRows).pipe(
        Effect.map(first),
        Effect.orDie
      )

    /** The user and their membership of one tenant in one read (every authenticated request needs both). */
    const withMembership = (tenantId: string, userId: string) =>
      prepared.query(WITH_MEMBERSHIP, [tenantId, userId]).pipe(userMembershipRows).pipe(
        Effect.map((rows) => {
          const r = rows[0]
          if (r === undefined) return Option.none()
          const user: UserRow = {
            id: r.user_id,
            email: r.email,
            name: r.name,
            password_hash: r.password_hash,
            totp_secret_enc: r.totp_secret_enc,
            totp_enabled: r.totp_enabled,
            totp_last_step: r.totp_last_step
          }
          const membership: MembershipRow = {
            tenant_id: r.tenant_id,
            user_id: r.user_id,
            role: r.role,
            status: r.status,
            tenant_name: r.tenant_name,
            tenant_slug: r.tenant_slug,
            settings: r.settings,
            created_at: r.created_at,
            last_login_at: r.last_login_at
          }
          return Option.some({ user, membership })
        }),
        Effect.orDie
      )

    /** `withMembership` for a signed-in request, from memory for a few seconds (AuthReads). */
    const signedInAs = (tenantId: string, userId: string) => signedIn.get(`${tenantId}:${userId}`, withMembership(tenantId, userId))

    const memberships = (userId: string) =>
      sql`${membershipSelect} WHERE m.user_id = ${userId}
        ORDER BY m.last_login_at DESC NULLS LAST, m.created_at`.pipe(membershipRows).pipe(Effect.orDie)

    const addMembership = (tenantId: string, userId: string, role: Role) =>
      sql`INSERT INTO memberships ${sql.insert({ tenant_id: tenantId, user_id: userId, role })}
        ON CONFLICT DO NOTHING RETURNING user_id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie, changed)

    const touchLogin = (tenantId: string, userId: string) =>
      sql`UPDATE memberships SET last_login_at = now() WHERE tenant_id = ${tenantId} AND user_id = ${userId}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** A password hash made again (other parameters), unless the password changed meanwhile. */
    const replacePasswordHash = (userId: string, previous: string, next: string) =>
      sql`UPDATE users SET password_hash = ${next} WHERE id = ${userId} AND password_hash = ${previous}`.pipe(
        Effect.asVoid,
        Effect.orDie,
        changed
      )

    const setTotp = (userId: string, secretEnc: string | null, enabled: boolean) =>
      sql`UPDATE users SET totp_secret_enc = ${secretEnc}, totp_enabled = ${enabled}, totp_last_step = NULL
        WHERE id = ${userId}`.pipe(Effect.asVoid, Effect.orDie, changed)

    const enableTotp = (userId: string) => sql`UPDATE users SET totp_enabled = true WHERE id = ${userId}`.pipe(Effect.asVoid, Effect.orDie, changed)

    /** Records the accepted TOTP step; false when that step (or a later one) was already used. */
    const consumeTotpStep = (userId: string, step: number) =>
      sql`UPDATE users SET totp_last_step = ${step}
        WHERE id = ${userId} AND (totp_last_step IS NULL OR totp_last_step < ${step}) RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    // Tenant-scoped reads and writes: the tenant always comes from the caller's principal.
    const member = (scope: Principal, userId: string) =>
      sql`${memberSelect(sql)} WHERE m.tenant_id = ${scope.tenantId} AND m.user_id = ${userId}`.pipe(memberRows).pipe(
        Effect.map(first),
        Effect.orDie
      )

    const memberInTenant = (tenantId: TenantId, userId: string) =>
      sql`${memberSelect(sql)} WHERE m.tenant_id = ${tenantId} AND m.user_id = ${userId}`.pipe(memberRows).pipe(
        Effect.map(first),
        Effect.orDie
      )

    const listMembers = (scope: Principal, params: PageParams) =>
      Effect.all([
        sql`${memberSelect(sql)} WHERE m.tenant_id = ${scope.tenantId}
          ORDER BY m.created_at, u.id LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(memberRows),
        sql`SELECT count(*)::int AS total FROM memberships WHERE tenant_id = ${scope.tenantId}`.pipe(
          decodeRows("memberships", Schema.Struct({ total: Schema.Number }))
        )
      ]).pipe(Effect.map(([items, [c]]) => ({ items, total: c?.total ?? 0 })), Effect.orDie)

    /**
     * Locks the tenant against other membership changes (so that two admins demoting each other
     * cannot both see the other still there) and reads its active admins, inside the change's
     * transaction. `FOR NO KEY UPDATE` leaves rows that reference the tenant free to be written.
     */
    const lockedAdmins = (tenantId: string) =>
      sql`SELECT 1 FROM tenants WHERE id = ${tenantId} FOR NO KEY UPDATE`.pipe(
        Effect.zipRight(
          sql`SELECT user_id, role FROM memberships
            WHERE tenant_id = ${tenantId} AND status = 'active' AND role IN ${sql.in(USER_ADMINS)}`.pipe(activeAdminRows)
        )
      )

    /** Runs `write` unless the change would take away the tenant's last holder of its highest admin role. */
    const keepingAdmins = <A>(scope: Principal, userId: string, change: MembershipChange, write: Effect.Effect<A, SqlError>) =>
      sql.withTransaction(Effect.gen(function*() {
        const kept = roleLeftWithoutHolder(yield* lockedAdmins(scope.tenantId), userId as UserId, change)
        if (kept !== undefined) return lastAdmin(kept)
        return written(yield* write)
      }))

    const updateMember = (
      scope: Principal,
      userId: string,
      patch: { role?: Role | undefined; status?: "active" | "disabled" | undefined; name?: string | undefined }
    ) =>
      keepingAdmins(
        scope,
        userId,
        patch,
        Effect.gen(function*() {
          if (patch.role !== undefined || patch.status !== undefined) {
            yield* sql`UPDATE memberships SET role = COALESCE(${patch.role ?? null}, role),
                status = COALESCE(${patch.status ?? null}, status)
              WHERE tenant_id = ${scope.tenantId} AND user_id = ${userId}`
          }
          if (patch.name !== undefined) {
            yield* sql`UPDATE users SET name = ${patch.name} WHERE id = ${userId}
              AND EXISTS (SELECT 1 FROM memberships WHERE tenant_id = ${scope.tenantId} AND user_id = ${userId})`
          }
        })
      ).pipe(
        changed,
        Effect.flatMap((r) => r._tag === "LastAdmin" ? Effect.succeed(r) : Effect.map(member(scope, userId), written)),
        Effect.orDie
      )

    const removeMember = (scope: Principal, userId: string) =>
      keepingAdmins(
        scope,
        userId,
        "remove",
        Effect.gen(function*() {
          yield* sql`DELETE FROM group_members WHERE tenant_id = ${scope.tenantId} AND user_id = ${userId}`
          yield* sql`UPDATE api_keys SET revoked_at = now()
            WHERE tenant_id = ${scope.tenantId} AND owner_user_id = ${userId} AND key_type = 'user' AND revoked_at IS NULL`
          const rows = yield* sql`DELETE FROM memberships WHERE tenant_id = ${scope.tenantId} AND user_id = ${userId}
            RETURNING user_id`
          return rows.length > 0
        })
      ).pipe(changed, Effect.orDie)

    const countUsers = sql`SELECT count(*)::int AS n FROM users`.pipe(decodeRows("users", Schema.Struct({ n: Schema.Number }))).pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      Effect.orDie
    )

    return traced("UsersRepo", {
      byEmail,
      byId,
      insertUser,
      membership,
      withMembership,
      signedInAs,
      memberships,
      addMembership,
      touchLogin,
      replacePasswordHash,
      setTotp,
      enableTotp,
      consumeTotpStep,
      member,
      memberInTenant,
      listMembers,
      updateMember,
      removeMember,
      countUsers
    })
  })
}) {}

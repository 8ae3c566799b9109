import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { Audit } from "../../platform/Audit.js"
import { AppConfig } from "../../platform/Config.js"
import { traced } from "../../platform/Traced.js"
import { requireCanGrant, requireEnvAdmin, requireRole, TENANT_ADMINS, USER_ADMINS } from "../../schemas/Authorization.js"
import { conflict, forbidden, notFound, unprocessable } from "../../schemas/Errors.js"
import type { TenantId, UserId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOf } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import type { Role } from "../../schemas/Roles.js"
import { isAtLeast } from "../../schemas/Roles.js"
import type { TenantSettings } from "../../schemas/Tenant.js"
import { Passwords } from "./Passwords.js"
import { TenantsRepo } from "./TenantsRepo.js"
import { UsersRepo } from "./UsersRepo.js"

const lastAdmin = (role: Role) =>
  conflict(
    "LAST_ADMIN",
    `This is the workspace's last active ${role}: give another member that role before demoting, disabling or removing this one`
  )

/** Tenants, users and memberships. */
export class Directory extends Effect.Service<Directory>()("Directory", {
  dependencies: [Passwords.Default, TenantsRepo.Default, UsersRepo.Default],
  effect: Effect.gen(function*() {
    const tenants = yield* TenantsRepo
    const users = yield* UsersRepo
    const audit = yield* Audit
    const config = yield* AppConfig
    const passwords = yield* Passwords

    const createTenant = (principal: Principal, input: { name: string; slug: string }) =>
      Effect.gen(function*() {
        yield* requireEnvAdmin(principal)
        const tenant = yield* tenants.insert({ id: randomUUID(), ...input })
        if (Option.isNone(tenant)) return yield* conflict("SLUG_TAKEN", `A tenant with slug '${input.slug}' exists`)
        yield* audit.record(principal, { action: "tenant.created", resourceType: "tenant", resourceId: tenant.value.id })
        return tenant.value
      })

    const listTenants = (principal: Principal, params: PageParams) =>
      requireEnvAdmin(principal).pipe(
        Effect.zipRight(tenants.list(params)),
        Effect.map(({ items, total }) => pageOf(params, items, total))
      )

    /** A tenant's retention stays within the platform's maximum, and its detail within its retention. */
    const checkRetention = (tenantId: TenantId, patch: { readonly [K in keyof TenantSettings]?: TenantSettings[K] | undefined }) =>
      Effect.gen(function*() {
        if (patch.run_retention_days === undefined && patch.run_detail_retention_days == null) return
        const current = Option.map(yield* tenants.byId(tenantId), (t) => t.settings)
        const days = patch.run_retention_days ?? Option.getOrUndefined(current)?.run_retention_days ?? config.runRetentionDays
        if (days > config.runRetentionMaxDays) {
          return yield* unprocessable("RETENTION_TOO_LONG", `run_retention_days may be at most ${config.runRetentionMaxDays} (RUN_RETENTION_MAX_DAYS)`)
        }
        const detail = patch.run_detail_retention_days !== undefined
          ? patch.run_detail_retention_days
          : Option.getOrUndefined(current)?.run_detail_retention_days
        if (detail != null && detail > days) {
          return yield* unprocessable("RETENTION_TOO_LONG", `run_detail_retention_days (${detail}) may not exceed run_retention_days (${days})`)
        }
      })

    const getSettings = (principal: Principal, tenantId: TenantId) =>
      Effect.gen(function*() {
        if (principal.role !== "env_admin" && tenantId !== principal.tenantId) return yield* notFound("Tenant")
        yield* requireRole(principal, TENANT_ADMINS)
        const tenant = yield* tenants.byId(tenantId)
        if (Option.isNone(tenant)) return yield* notFound("Tenant")
        return tenant.value
      })

    const updateSettings = (principal: Principal, tenantId: TenantId, patch: { readonly [K in keyof TenantSettings]?: TenantSettings[K] | undefined }) =>
      Effect.gen(function*() {
        // Only an env_admin sees other tenants; for everyone else another tenant does not exist.
        if (principal.role !== "env_admin" && tenantId !== principal.tenantId) return yield* notFound("Tenant")
        yield* requireRole(principal, TENANT_ADMINS)
        // A tenant's share of the platform is the operator's to set, not the tenant's own admins'.
        if (
          patch.max_runs_in_flight !== undefined || patch.max_model_calls_in_flight !== undefined || patch.max_run_starts_per_second !== undefined
        ) yield* requireEnvAdmin(principal)
        yield* checkRetention(tenantId, patch)
        const tenant = yield* tenants.mergeSettings(tenantId, patch)
        if (Option.isNone(tenant)) return yield* notFound("Tenant")
        yield* audit.record(principal, {
          tenantId,
          action: "tenant.settings_updated",
          resourceType: "tenant",
          resourceId: tenantId,
          details: patch
        })
        return tenant.value
      })

    const createUser = (principal: Principal, input: {
      email: string
      name: string
      password?: string | undefined
      role: Role
      tenant_id?: TenantId | undefined
    }) =>
      Effect.gen(function*() {
        yield* requireRole(principal, USER_ADMINS)
        yield* requireCanGrant(principal, input.role)
        const tenantId = input.tenant_id ?? principal.tenantId
        if (tenantId !== principal.tenantId) {
          if (principal.role !== "env_admin") return yield* notFound("Tenant")
          if (Option.isNone(yield* tenants.byId(tenantId))) return yield* notFound("Tenant")
        }
        const existing = yield* users.byEmail(input.email)
        const user = Option.isSome(existing) ? existing.value : yield* Effect.gen(function*() {
          const password_hash = input.password === undefined ? null : yield* passwords.hash(input.password)
          const inserted = yield* users.insertUser({ id: randomUUID(), email: input.email, name: input.name, password_hash })
          return yield* Option.match(inserted, {
            onSome: Effect.succeed,
            onNone: () => users.byEmail(input.email).pipe(Effect.flatMap(Effect.orDieWith(() => "user vanished")))
          })
        })
        if (!(yield* users.addMembership(tenantId, user.id, input.role))) {
          return yield* conflict("ALREADY_MEMBER", "This user is already a member of the tenant")
        }
        yield* audit.record(principal, {
          tenantId,
          action: "user.created",
          resourceType: "user",
          resourceId: user.id,
          details: { role: input.role, existing_identity: Option.isSome(existing) }
        })
        return yield* users.memberInTenant(tenantId, user.id).pipe(Effect.flatMap(Effect.orDieWith(() => "member vanished")))
      })

    const listUsers = (principal: Principal, params: PageParams) =>
      requireRole(principal, USER_ADMINS).pipe(
        Effect.zipRight(users.listMembers(principal, params)),
        Effect.map(({ items, total }) => pageOf(params, items, total))
      )

    const target = (principal: Principal, userId: UserId) =>
      users.member(principal, userId).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("User")), onSome: Effect.succeed }))
      )

    const updateUser = (principal: Principal, userId: UserId, patch: {
      role?: Role | undefined
      status?: "active" | "disabled" | undefined
      name?: string | undefined
    }) =>
      Effect.gen(function*() {
        const member = yield* target(principal, userId)
        yield* requireRole(principal, USER_ADMINS)
        if (!isAtLeast(principal.role, member.role)) return yield* forbidden("You cannot change a member above your role")
        if (patch.role !== undefined) yield* requireCanGrant(principal, patch.role)
        const updated = yield* users.updateMember(principal, userId, patch)
        if (updated._tag === "LastAdmin") return yield* lastAdmin(updated.role)
        yield* audit.record(principal, {
          action: "user.updated",
          resourceType: "user",
          resourceId: userId,
          details: { ...patch, previous_role: member.role }
        })
        return yield* Option.match(updated.value, { onNone: () => Effect.fail(notFound("User")), onSome: Effect.succeed })
      })

    const removeUser = (principal: Principal, userId: UserId) =>
      Effect.gen(function*() {
        const member = yield* target(principal, userId)
        yield* requireRole(principal, USER_ADMINS)
        if (!isAtLeast(principal.role, member.role)) return yield* forbidden("You cannot remove a member above your role")
        const removed = yield* users.removeMember(principal, userId)
        if (removed._tag === "LastAdmin") return yield* lastAdmin(removed.role)
        if (!removed.value) return yield* notFound("User")
        yield* audit.record(principal, { action: "user.removed", resourceType: "user", resourceId: userId })
      })

    const me = (principal: Principal) =>
      principal.profile !== undefined
        ? Effect.succeed({
          user: {
            id: principal.userId,
            tenant_id: principal.tenantId,
            email: principal.email,
            name: principal.profile.name,
            role: principal.profile.role,
            status: principal.profile.status
          },
          auth_method: principal.authMethod,
          totp_enabled: principal.profile.totp_enabled
        })
        : users.member(principal, principal.userId).pipe(
          Effect.flatMap(Effect.orDieWith(() => "member vanished")),
          Effect.zip(users.byId(principal.userId).pipe(Effect.flatMap(Effect.orDieWith(() => "user vanished")))),
          Effect.map(([user, row]) => ({ user, auth_method: principal.authMethod, totp_enabled: row.totp_enabled }))
        )

    const myTenants = (principal: Principal) =>
      users.memberships(principal.userId).pipe(
        Effect.map((ms) => ({
          items: ms.map((m) => ({
            tenant_id: m.tenant_id,
            name: m.tenant_name,
            slug: m.tenant_slug,
            role: m.role,
            status: m.status
          }))
        }))
      )

    return traced("Directory", { createTenant, listTenants, getSettings, updateSettings, createUser, listUsers, updateUser, removeUser, me, myTenants })
  })
}) {}

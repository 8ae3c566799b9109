import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Audit } from "../../../platform/Audit.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { requireRole, USER_ADMINS } from "../../../schemas/Authorization.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { Directory } from "../Directory.js"
import { Groups } from "../Groups.js"
import { SsoConfigs } from "../SsoConfigs.js"
import { SsoDomains } from "../SsoDomains.js"

export const TenantsHttp = HttpApiBuilder.group(PlatformApi, "tenants", (handlers) =>
  Effect.gen(function*() {
    const directory = yield* Directory
    const sso = yield* SsoConfigs
    const domains = yield* SsoDomains
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => directory.createTenant(p, payload)))
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => directory.listTenants(p, urlParams)))
      .handle("updateSettings", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => directory.updateSettings(p, path.id, payload)))
      .handle("getSso", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => sso.get(p, path.id)))
      .handle("putSso", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => sso.put(p, path.id, payload)))
      .handle("deleteSso", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => sso.remove(p, path.id)))
      .handle("ssoDomainClaims", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => domains.list(p, urlParams.status)))
      .handle("approveSsoDomain", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => domains.decide(p, path.id, path.domain, "approved")))
      .handle("rejectSsoDomain", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => domains.decide(p, path.id, path.domain, "rejected")))
  }))

export const UsersHttp = HttpApiBuilder.group(PlatformApi, "users", (handlers) =>
  Effect.gen(function*() {
    const directory = yield* Directory
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => directory.createUser(p, payload)))
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => directory.listUsers(p, urlParams)))
      .handle("update", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => directory.updateUser(p, path.id, payload)))
      .handle("remove", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => directory.removeUser(p, path.id)))
  }))

export const GroupsHttp = HttpApiBuilder.group(PlatformApi, "groups", (handlers) =>
  Effect.gen(function*() {
    const groups = yield* Groups
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => groups.create(p, payload)))
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => groups.list(p, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => groups.get(p, path.id)))
      .handle("update", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => groups.update(p, path.id, payload)))
      .handle("remove", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => groups.remove(p, path.id)))
      .handle("members", ({ path, urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => groups.members(p, path.id, urlParams)))
      .handle("addMember", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => groups.addMember(p, path.id, payload)))
      .handle("removeMember", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => groups.removeMember(p, path.id, path.user_id)))
  }))

export const AuditHttp = HttpApiBuilder.group(PlatformApi, "audit", (handlers) =>
  Effect.gen(function*() {
    const audit = yield* Audit
    return handlers.handle("list", ({ urlParams }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        yield* requireRole(principal, USER_ADMINS)
        return yield* audit.list(principal, urlParams)
      }))
  }))

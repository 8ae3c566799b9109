import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Audit } from "../../../platform/Audit.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { requireRole, USER_ADMINS } from "../../../schemas/Authorization.js"
import { asCaller } from "../../../schemas/Principal.js"
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
      .handle("create", ({ payload }) => asCaller((p) => directory.createTenant(p, payload)))
      .handle("list", ({ urlParams }) => asCaller((p) => directory.listTenants(p, urlParams)))
      .handle("getSettings", ({ path }) => asCaller((p) => directory.getSettings(p, path.id)))
      .handle("updateSettings", ({ path, payload }) => asCaller((p) => directory.updateSettings(p, path.id, payload)))
      .handle("getSso", ({ path }) => asCaller((p) => sso.get(p, path.id)))
      .handle("putSso", ({ path, payload }) => asCaller((p) => sso.put(p, path.id, payload)))
      .handle("deleteSso", ({ path }) => asCaller((p) => sso.remove(p, path.id)))
      .handle("ssoDomainClaims", ({ urlParams }) => asCaller((p) => domains.list(p, urlParams.status)))
      .handle("approveSsoDomain", ({ path }) => asCaller((p) => domains.decide(p, path.id, path.domain, "approved")))
      .handle("rejectSsoDomain", ({ path }) => asCaller((p) => domains.decide(p, path.id, path.domain, "rejected")))
  }))

export const UsersHttp = HttpApiBuilder.group(PlatformApi, "users", (handlers) =>
  Effect.gen(function*() {
    const directory = yield* Directory
    return handlers
      .handle("create", ({ payload }) => asCaller((p) => directory.createUser(p, payload)))
      .handle("list", ({ urlParams }) => asCaller((p) => directory.listUsers(p, urlParams)))
      .handle("update", ({ path, payload }) => asCaller((p) => directory.updateUser(p, path.id, payload)))
      .handle("remove", ({ path }) => asCaller((p) => directory.removeUser(p, path.id)))
  }))

export const GroupsHttp = HttpApiBuilder.group(PlatformApi, "groups", (handlers) =>
  Effect.gen(function*() {
    const groups = yield* Groups
    return handlers
      .handle("create", ({ payload }) => asCaller((p) => groups.create(p, payload)))
      .handle("list", ({ urlParams }) => asCaller((p) => groups.list(p, urlParams)))
      .handle("get", ({ path }) => asCaller((p) => groups.get(p, path.id)))
      .handle("update", ({ path, payload }) => asCaller((p) => groups.update(p, path.id, payload)))
      .handle("remove", ({ path }) => asCaller((p) => groups.remove(p, path.id)))
      .handle("members", ({ path, urlParams }) => asCaller((p) => groups.members(p, path.id, urlParams)))
      .handle("addMember", ({ path, payload }) => asCaller((p) => groups.addMember(p, path.id, payload)))
      .handle("removeMember", ({ path }) => asCaller((p) => groups.removeMember(p, path.id, path.user_id)))
  }))

export const AuditHttp = HttpApiBuilder.group(PlatformApi, "audit", (handlers) =>
  Effect.gen(function*() {
    const audit = yield* Audit
    return handlers.handle("list", ({ urlParams }) =>
      asCaller((principal) =>
        Effect.gen(function*() {
          yield* requireRole(principal, USER_ADMINS)
          return yield* audit.list(principal, urlParams)
        })
      ))
  }))

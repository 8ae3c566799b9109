import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { Audit } from "../../platform/Audit.js"
import { traced } from "../../platform/Traced.js"
import type { OperationScope, ResourceScope, WidgetScope } from "../../schemas/Auth.js"
import { requireAccess, requireJwt, requireRole, TENANT_ADMINS } from "../../schemas/Authorization.js"
import { badRequest, notFound } from "../../schemas/Errors.js"
import type { ApiKeyId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOf } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { generateApiKey } from "./ApiKeySecret.js"
import { ApiKeysRepo, toApiKey } from "./ApiKeysRepo.js"

/** Keys belong to their tenant; a member manages their own, tenant admins manage all. */
export class ApiKeys extends Effect.Service<ApiKeys>()("ApiKeys", {
  dependencies: [ApiKeysRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* ApiKeysRepo
    const audit = yield* Audit

    const create = (principal: Principal, input: {
      name: string
      key_type: "user" | "system"
      operation_scope?: OperationScope | null | undefined
      resource_scope?: ResourceScope | null | undefined
      widget?: WidgetScope | null | undefined
      expires_at?: Date | null | undefined
    }) =>
      Effect.gen(function*() {
        yield* requireJwt(principal)
        yield* requireAccess(principal)
        if (input.key_type === "system") yield* requireRole(principal, TENANT_ADMINS)
        if (input.widget != null && input.key_type === "system") {
          return yield* badRequest("INVALID_WIDGET_KEY", "A chat widget key acts as the person who made it: key_type must be user")
        }
        if (input.expires_at != null && input.expires_at.getTime() <= Date.now()) {
          return yield* badRequest("INVALID_EXPIRY", "expires_at must be in the future")
        }
        const secret = generateApiKey()
        const row = yield* repo.insert(principal, {
          id: randomUUID(),
          name: input.name,
          key_hash: secret.hash,
          key_prefix: secret.prefix,
          key_type: input.key_type,
          system_role: input.key_type === "system" ? principal.role : null,
          operation_scope: input.operation_scope,
          resource_scope: input.resource_scope,
          widget: input.widget,
          expires_at: input.expires_at
        })
        yield* audit.record(principal, {
          action: "api_key.created",
          resourceType: "api_key",
          resourceId: row.id,
          details: { key_type: input.key_type, name: input.name, ...(input.widget != null ? { widget: input.widget } : {}) }
        })
        return { ...toApiKey(row), key: secret.key }
      })

    const list = (principal: Principal, params: PageParams) =>
      requireAccess(principal).pipe(
        Effect.zipRight(repo.list(principal, params)),
        Effect.map(({ items, total }) => pageOf(params, items.map(toApiKey), total))
      )

    /** 404 when the key is not in the caller's tenant; 403 when it is someone else's and the caller is no admin. */
    const owned = (principal: Principal, id: ApiKeyId) =>
      Effect.gen(function*() {
        const row = yield* repo.get(principal, id)
        if (Option.isNone(row)) return yield* notFound("API key")
        yield* requireAccess(principal)
        if (row.value.owner_user_id !== principal.userId) yield* requireRole(principal, TENANT_ADMINS)
        return row.value
      })

    const update = (principal: Principal, id: ApiKeyId, patch: {
      name?: string | undefined
      operation_scope?: OperationScope | null | undefined
      resource_scope?: ResourceScope | null | undefined
    }) =>
      Effect.gen(function*() {
        yield* owned(principal, id)
        const row = yield* repo.update(principal, id, patch)
        if (Option.isNone(row)) return yield* notFound("API key")
        yield* audit.record(principal, { action: "api_key.updated", resourceType: "api_key", resourceId: id, details: patch })
        return toApiKey(row.value)
      })

    const revoke = (principal: Principal, id: ApiKeyId) =>
      Effect.gen(function*() {
        yield* owned(principal, id)
        yield* repo.revoke(principal, id)
        yield* audit.record(principal, { action: "api_key.revoked", resourceType: "api_key", resourceId: id })
      })

    return traced("ApiKeys", { create, list, update, revoke })
  })
}) {}

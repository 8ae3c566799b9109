import { Effect, Option } from "effect"
import { traced } from "../../platform/Traced.js"
import type { OperationScope, ResourceScope } from "../../schemas/Auth.js"
import { Forbidden, type Unauthorized } from "../../schemas/Errors.js"
import { forbidden, unauthorized } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { defaultTenantSettings } from "../../schemas/Tenant.js"
import { hashApiKey } from "./ApiKeySecret.js"
import { ApiKeysRepo } from "./ApiKeysRepo.js"
import { Sessions } from "./Sessions.js"
import { settingsOf } from "./UsersRepo.js"

export interface CredentialInput {
  readonly authorization?: string | undefined
  readonly apiKey?: string | undefined
  readonly method: string
  readonly path: string
  /** The browser's Origin header, when a page sent the request. */
  readonly origin?: string | undefined
}

const UUID = "[0-9a-fA-F-]{36}"
const WIDGET_ROUTES: ReadonlyArray<readonly [string, RegExp]> = [
  ["GET", new RegExp(`^/api/v1/chat/workflows/${UUID}$`)],
  ["POST", /^\/api\/v1\/chat\/external\/chat$/],
  ["GET", new RegExp(`^/api/v1/chat/runs/${UUID}/stream$`)],
  ["POST", new RegExp(`^/api/v1/chat/messages/${UUID}/feedback$`)],
  ["PATCH", new RegExp(`^/api/v1/chat/messages/${UUID}/feedback$`)]
]

/** The routes the chat widget calls: all a widget key reaches (schemas/Auth.ts WidgetScope). */
export const isWidgetRoute = (method: string, path: string) => WIDGET_ROUTES.some(([m, re]) => m === method && re.test(path))

const BEARER = /^Bearer\s+(\S+)\s*$/i

export const inScope = (
  operation: OperationScope | null,
  resource: ResourceScope | null,
  method: string,
  path: string
): boolean => {
  const op = method === "GET" || method === "HEAD" ? "read" : "write"
  if (operation !== null && !operation.includes(op)) return false
  if (resource === null) return true
  const service = /^\/api\/v1\/([^/]+)/.exec(path)?.[1]
  return service !== undefined && (resource as ReadonlyArray<string>).includes(service)
}

/**
 * One credential per request: an Authorization header is a JWT with no fallback to the key;
 * only without it is X-API-Key read; with neither, 401.
 */
export class Credentials extends Effect.Service<Credentials>()("Credentials", {
  dependencies: [ApiKeysRepo.Default, Sessions.Default],
  effect: Effect.gen(function*() {
    const sessions = yield* Sessions
    const keys = yield* ApiKeysRepo

    const fromJwt = (header: string): Effect.Effect<Principal, Unauthorized> =>
      Effect.gen(function*() {
        const token = BEARER.exec(header)?.[1]
        if (token === undefined) return yield* unauthorized("Authorization must be 'Bearer <access token>'")
        const { claims, membership, user } = yield* sessions.resolve(token, "access")
        return {
          userId: user.id,
          tenantId: membership.tenant_id,
          email: user.email,
          role: membership.role,
          authMethod: "jwt",
          amr: claims.amr,
          settings: settingsOf(membership),
          profile: { name: user.name, role: membership.role, status: membership.status, totp_enabled: user.totp_enabled }
        } satisfies Principal
      })

    const fromApiKey = (key: string, method: string, path: string, origin: string | undefined): Effect.Effect<Principal, Unauthorized | Forbidden> =>
      Effect.gen(function*() {
        const row = yield* keys.byHash(hashApiKey(key))
        if (Option.isNone(row)) return yield* unauthorized("Invalid API key", "INVALID_API_KEY")
        const { key: k, owner } = row.value
        if (k.revoked_at !== null) return yield* unauthorized("API key revoked", "API_KEY_REVOKED")
        if (k.expires_at !== null && k.expires_at.getTime() <= Date.now()) {
          return yield* unauthorized("API key expired", "API_KEY_EXPIRED")
        }
        if (owner === null) return yield* unauthorized("The key's owner no longer belongs to this tenant", "API_KEY_ORPHANED")
        // A system key keeps the role it was created with; a user key acts as its owner does now.
        if (k.key_type === "user" && owner.status !== "active") {
          return yield* unauthorized("The key's owner is disabled", "ACCOUNT_INACTIVE")
        }
        if (!inScope(k.operation_scope, k.resource_scope, method, path)) {
          return yield* forbidden("This API key's scope does not cover this operation")
        }
        if (k.widget !== null && !isWidgetRoute(method, path)) {
          return yield* forbidden("A chat widget key reaches only the chat widget's routes")
        }
        if (k.widget !== null && origin !== undefined && !k.widget.allowed_origins.includes(origin)) {
          return yield* new Forbidden({ code: "WIDGET_ORIGIN_NOT_ALLOWED", message: `This chat widget key is not allowed on pages of ${origin}` })
        }
        yield* keys.touch(k.id, k.last_used_at)
        return {
          userId: k.owner_user_id,
          tenantId: k.tenant_id,
          email: owner.email,
          role: k.key_type === "system" && k.system_role !== null ? k.system_role : owner.role,
          authMethod: "api_key",
          apiKeyId: k.id,
          apiKeyType: k.key_type,
          ...(k.widget !== null ? { widget: k.widget } : {}),
          amr: [],
          settings: { ...defaultTenantSettings, ...owner.settings },
          profile: { name: owner.name, role: owner.role, status: owner.status, totp_enabled: owner.totp_enabled }
        } satisfies Principal
      })

    const authenticate = (input: CredentialInput): Effect.Effect<Principal, Unauthorized | Forbidden> => (input.authorization !== undefined
      ? fromJwt(input.authorization)
      : input.apiKey !== undefined && input.apiKey !== ""
      ? fromApiKey(input.apiKey, input.method, input.path, input.origin)
      : Effect.fail(unauthorized("Missing credential: send Authorization: Bearer <token> or X-API-Key")))

    return traced("Credentials", { authenticate })
  })
}) {}

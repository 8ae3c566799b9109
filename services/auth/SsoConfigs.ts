import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { Audit } from "../../platform/Audit.js"
import { AppConfig } from "../../platform/Config.js"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import type { PutSsoConfigRequest } from "../../schemas/Auth.js"
import { requireRole, TENANT_ADMINS } from "../../schemas/Authorization.js"
import type { Forbidden, NotFound } from "../../schemas/Errors.js"
import { notFound, unprocessable } from "../../schemas/Errors.js"
import { TenantId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { Role } from "../../schemas/Roles.js"
import { SsoClients } from "./SsoClients.js"
import { SsoDomains } from "./SsoDomains.js"

const SsoRow = Schema.Struct({
  tenant_id: TenantId,
  issuer: Schema.String,
  client_id: Schema.String,
  client_secret_enc: Schema.NullOr(Schema.String),
  email_domains: Schema.Array(Schema.String),
  scopes: Schema.String,
  auto_provision: Schema.Boolean,
  default_role: Role,
  enabled: Schema.Boolean,
  updated_at: Timestamp
})
export type SsoRow = typeof SsoRow.Type

const ssoRows = decodeRows("sso_configs", SsoRow)

/** The identity provider of each workspace: its settings, kept by the workspace's admins. */
export class SsoConfigs extends Effect.Service<SsoConfigs>()("SsoConfigs", {
  dependencies: [SsoClients.Default, SsoDomains.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const cipher = yield* CredentialsCipher
    const audit = yield* Audit
    const domains = yield* SsoDomains
    const clients = yield* SsoClients
    const redirectUri = `${config.publicBaseUrl}/api/v1/auth/auth/sso/callback`

    const load = (tenantId: string) =>
      sql`SELECT * FROM sso_configs WHERE tenant_id = ${tenantId}`.pipe(ssoRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const authorize = (principal: Principal, tenantId: TenantId): Effect.Effect<void, NotFound | Forbidden> =>
      principal.role !== "env_admin" && tenantId !== principal.tenantId
        ? Effect.fail(notFound("Tenant"))
        : requireRole(principal, TENANT_ADMINS)

    const view = (row: SsoRow) =>
      Effect.map(domains.ofTenant(row.tenant_id), (claims) => ({
        tenant_id: row.tenant_id,
        issuer: row.issuer,
        client_id: row.client_id,
        has_client_secret: row.client_secret_enc !== null,
        email_domains: row.email_domains,
        email_domain_claims: claims,
        scopes: row.scopes,
        auto_provision: row.auto_provision,
        default_role: row.default_role,
        enabled: row.enabled,
        redirect_uri: redirectUri,
        updated_at: row.updated_at
      }))

    const get = (principal: Principal, tenantId: TenantId) =>
      authorize(principal, tenantId).pipe(
        Effect.zipRight(load(tenantId)),
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("SSO configuration")), onSome: view }))
      )

    const put = (principal: Principal, tenantId: TenantId, input: typeof PutSsoConfigRequest.Type) =>
      Effect.gen(function*() {
        yield* authorize(principal, tenantId)
        const exists = yield* sql`SELECT 1 FROM tenants WHERE id = ${tenantId}`.pipe(Effect.orDie)
        if (exists.length === 0) return yield* notFound("Tenant")
        yield* clients.checkIssuer(input.issuer).pipe(
          Effect.mapError((e) => unprocessable("OUTBOUND_ADDRESS_REFUSED", e.message, [{ path: ["issuer"], message: e.message }]))
        )
        const secret = input.client_secret === undefined ? undefined : yield* cipher.encrypt(input.client_secret, `sso:${tenantId}`)
        const row = {
          tenant_id: tenantId,
          issuer: input.issuer.replace(/\/$/, ""),
          client_id: input.client_id,
          email_domains: [...new Set(input.email_domains.map((d) => d.toLowerCase()))],
          scopes: input.scopes,
          auto_provision: input.auto_provision,
          default_role: input.default_role,
          enabled: input.enabled
        }
        const claims = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO sso_configs ${sql.insert({ ...row, client_secret_enc: secret ?? null })}
            ON CONFLICT (tenant_id) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
              client_secret_enc = ${secret === undefined ? sql`sso_configs.client_secret_enc` : sql`EXCLUDED.client_secret_enc`},
              email_domains = EXCLUDED.email_domains, scopes = EXCLUDED.scopes, auto_provision = EXCLUDED.auto_provision,
              default_role = EXCLUDED.default_role, enabled = EXCLUDED.enabled, updated_at = now()`
          return yield* domains.request(principal, tenantId, row.email_domains)
        })).pipe(Effect.catchTag("SqlError", Effect.die))
        clients.forget(tenantId)
        yield* audit.record(principal, {
          tenantId,
          action: "sso.configured",
          resourceType: "tenant",
          resourceId: tenantId,
          details: { issuer: row.issuer, email_domains: claims.map((c) => `${c.domain} (${c.status})`) }
        })
        return yield* get(principal, tenantId)
      })

    const remove = (principal: Principal, tenantId: TenantId) =>
      Effect.gen(function*() {
        yield* authorize(principal, tenantId)
        const rows = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM sso_domain_claims WHERE tenant_id = ${tenantId}`
          return yield* sql`DELETE FROM sso_configs WHERE tenant_id = ${tenantId} RETURNING tenant_id`
        })).pipe(Effect.orDie)
        if (rows.length === 0) return yield* notFound("SSO configuration")
        clients.forget(tenantId)
        yield* audit.record(principal, { tenantId, action: "sso.removed", resourceType: "tenant", resourceId: tenantId })
      })

    return traced("SsoConfigs", { load, get, put, remove, redirectUri })
  })
}) {}

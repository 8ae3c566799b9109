import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import * as oidc from "openid-client"
import type { Forbidden, NotFound } from "../../schemas/Errors.js"
import { forbidden, notFound, unauthorized } from "../../schemas/Errors.js"
import { TenantId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { Role } from "../../schemas/Roles.js"
import { Audit } from "../../platform/Audit.js"
import { AppConfig } from "../../platform/Config.js"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { requireRole, TENANT_ADMINS } from "../../schemas/Authorization.js"
import { Sessions } from "./Sessions.js"
import { Tokens } from "./Tokens.js"
import { UsersRepo } from "./UsersRepo.js"

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
type SsoRow = typeof SsoRow.Type

const ssoRows = decodeRows("sso_configs", SsoRow)

const STATE_TTL_MS = 10 * 60_000
const isLoopback = (url: URL) => ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)

/** OpenID Connect sign-in (authorization code + PKCE, state and nonce), configured per tenant. */
export class Sso extends Effect.Service<Sso>()("Sso", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const cipher = yield* CredentialsCipher
    const tokens = yield* Tokens
    const sessions = yield* Sessions
    const users = yield* UsersRepo
    const audit = yield* Audit
    const redirectUri = `${config.publicBaseUrl}/api/v1/auth/auth/sso/callback`
    const discovered = new Map<string, oidc.Configuration>()

    const toView = (row: SsoRow) => ({
      tenant_id: row.tenant_id,
      issuer: row.issuer,
      client_id: row.client_id,
      has_client_secret: row.client_secret_enc !== null,
      email_domains: row.email_domains,
      scopes: row.scopes,
      auto_provision: row.auto_provision,
      default_role: row.default_role,
      enabled: row.enabled,
      redirect_uri: redirectUri,
      updated_at: row.updated_at
    })

    const load = (tenantId: string) =>
      sql`SELECT * FROM sso_configs WHERE tenant_id = ${tenantId}`.pipe(ssoRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const authorize = (principal: Principal, tenantId: TenantId): Effect.Effect<void, NotFound | Forbidden> =>
      principal.role !== "env_admin" && tenantId !== principal.tenantId
        ? Effect.fail(notFound("Tenant"))
        : requireRole(principal, TENANT_ADMINS)

    const getConfig = (principal: Principal, tenantId: TenantId) =>
      authorize(principal, tenantId).pipe(
        Effect.zipRight(load(tenantId)),
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("SSO configuration")), onSome: (r) => Effect.succeed(toView(r)) }))
      )

    const putConfig = (principal: Principal, tenantId: TenantId, input: {
      issuer: string
      client_id: string
      client_secret?: string | undefined
      email_domains: ReadonlyArray<string>
      scopes: string
      auto_provision: boolean
      default_role: Role
      enabled: boolean
    }) =>
      Effect.gen(function*() {
        yield* authorize(principal, tenantId)
        const exists = yield* sql`SELECT 1 FROM tenants WHERE id = ${tenantId}`.pipe(Effect.orDie)
        if (exists.length === 0) return yield* notFound("Tenant")
        const secret = input.client_secret === undefined
          ? undefined
          : yield* cipher.encrypt(input.client_secret, `sso:${tenantId}`)
        const row = {
          tenant_id: tenantId,
          issuer: input.issuer.replace(/\/$/, ""),
          client_id: input.client_id,
          email_domains: input.email_domains.map((d) => d.toLowerCase()),
          scopes: input.scopes,
          auto_provision: input.auto_provision,
          default_role: input.default_role,
          enabled: input.enabled
        }
        yield* sql`INSERT INTO sso_configs ${sql.insert({ ...row, client_secret_enc: secret ?? null })}
          ON CONFLICT (tenant_id) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
            client_secret_enc = ${secret === undefined ? sql`sso_configs.client_secret_enc` : sql`EXCLUDED.client_secret_enc`},
            email_domains = EXCLUDED.email_domains, scopes = EXCLUDED.scopes, auto_provision = EXCLUDED.auto_provision,
            default_role = EXCLUDED.default_role, enabled = EXCLUDED.enabled, updated_at = now()`.pipe(Effect.orDie)
        discovered.delete(tenantId)
        yield* audit.record(principal, { tenantId, action: "sso.configured", resourceType: "tenant", resourceId: tenantId })
        return yield* getConfig(principal, tenantId)
      }).pipe(Effect.withSpan("Sso.putConfig"))

    const deleteConfig = (principal: Principal, tenantId: TenantId) =>
      Effect.gen(function*() {
        yield* authorize(principal, tenantId)
        const rows = yield* sql`DELETE FROM sso_configs WHERE tenant_id = ${tenantId} RETURNING tenant_id`.pipe(Effect.orDie)
        if (rows.length === 0) return yield* notFound("SSO configuration")
        discovered.delete(tenantId)
        yield* audit.record(principal, { tenantId, action: "sso.removed", resourceType: "tenant", resourceId: tenantId })
      })

    /** The tenant whose enabled SSO configuration claims this email's domain. */
    const forEmail = (email: string) =>
      sql<{ tenant_id: TenantId }>`SELECT tenant_id FROM sso_configs
        WHERE enabled AND ${email.split("@")[1]?.toLowerCase() ?? ""} = ANY(email_domains)
        ORDER BY updated_at LIMIT 1`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie)

    const clientFor = (row: SsoRow) =>
      Effect.gen(function*() {
        const cached = discovered.get(row.tenant_id)
        if (cached !== undefined) return cached
        const secret = row.client_secret_enc === null
          ? undefined
          : yield* cipher.decrypt(row.client_secret_enc, `sso:${row.tenant_id}`).pipe(Effect.orDie)
        const issuer = new URL(row.issuer)
        const client = yield* Effect.tryPromise(() =>
          oidc.discovery(
            issuer,
            row.client_id,
            secret,
            secret === undefined ? oidc.None() : oidc.ClientSecretPost(secret),
            issuer.protocol === "http:" && isLoopback(issuer) ? { execute: [oidc.allowInsecureRequests] } : undefined
          )
        ).pipe(
          Effect.tapError((e) => Effect.logWarning("OIDC discovery failed", e.error)),
          Effect.mapError(() => unauthorized("The identity provider could not be reached", "SSO_UNAVAILABLE"))
        )
        discovered.set(row.tenant_id, client)
        return client
      })

    const continueUrl = (token: string) =>
      Effect.gen(function*() {
        const claims = yield* tokens.verify(token, "sso_continue").pipe(
          Effect.mapError(() => unauthorized("Invalid or expired continuation token", "INVALID_TOKEN"))
        )
        const row = yield* load(claims.tid)
        if (Option.isNone(row) || !row.value.enabled) return yield* notFound("SSO configuration")
        const client = yield* clientFor(row.value)
        const verifier = oidc.randomPKCECodeVerifier()
        const state = oidc.randomState()
        const nonce = oidc.randomNonce()
        yield* sql`INSERT INTO sso_states ${
          sql.insert({
            state,
            tenant_id: claims.tid,
            code_verifier: verifier,
            nonce,
            expires_at: new Date(Date.now() + STATE_TTL_MS)
          })
        }`.pipe(Effect.orDie)
        const challenge = yield* Effect.promise(() => oidc.calculatePKCECodeChallenge(verifier))
        const params: Record<string, string> = {
          redirect_uri: redirectUri,
          scope: row.value.scopes,
          code_challenge: challenge,
          code_challenge_method: "S256",
          state,
          nonce
        }
        if (claims.email !== undefined) params.login_hint = claims.email
        return oidc.buildAuthorizationUrl(client, params).href
      }).pipe(Effect.withSpan("Sso.continue"))

    const callback = (query: Record<string, string | undefined>) =>
      Effect.gen(function*() {
        if (query.error !== undefined) {
          return yield* unauthorized(`The identity provider refused sign-in: ${query.error}`, "SSO_REFUSED")
        }
        const state = query.state
        if (state === undefined || query.code === undefined) {
          return yield* unauthorized("Missing code or state", "SSO_INVALID_CALLBACK")
        }
        const states = yield* sql<{ tenant_id: TenantId; code_verifier: string; nonce: string }>`
          DELETE FROM sso_states WHERE state = ${state} AND expires_at > now()
          RETURNING tenant_id, code_verifier, nonce`.pipe(Effect.orDie)
        const st = states[0]
        if (st === undefined) return yield* unauthorized("Unknown or expired sign-in state", "SSO_INVALID_STATE")
        const row = yield* load(st.tenant_id)
        if (Option.isNone(row) || !row.value.enabled) return yield* notFound("SSO configuration")
        const client = yield* clientFor(row.value)
        const current = new URL(redirectUri)
        for (const [k, v] of Object.entries(query)) if (v !== undefined) current.searchParams.set(k, v)
        const grant = yield* Effect.tryPromise(() =>
          oidc.authorizationCodeGrant(client, current, {
            pkceCodeVerifier: st.code_verifier,
            expectedState: state,
            expectedNonce: st.nonce,
            idTokenExpected: true
          })
        ).pipe(
          Effect.tapError((e) => Effect.logWarning("OIDC code exchange failed", e.error)),
          Effect.mapError(() => unauthorized("The identity provider's answer could not be verified", "SSO_EXCHANGE_FAILED"))
        )
        const idClaims = grant.claims()
        // Many providers put profile claims only behind the userinfo endpoint.
        const claims = typeof idClaims?.email === "string" || idClaims === undefined
          ? idClaims
          : yield* Effect.tryPromise(() => oidc.fetchUserInfo(client, grant.access_token, idClaims.sub)).pipe(
            Effect.mapError(() => unauthorized("The identity provider's userinfo could not be read", "SSO_EXCHANGE_FAILED"))
          )
        const email = typeof claims?.email === "string" ? claims.email : undefined
        if (email === undefined) return yield* unauthorized("The identity provider returned no email", "SSO_NO_EMAIL")
        let user = yield* users.byEmail(email)
        let membership = Option.isSome(user) ? yield* users.membership(st.tenant_id, user.value.id) : Option.none()
        if (Option.isNone(membership)) {
          if (!row.value.auto_provision) {
            return yield* forbidden("This account is not a member of the workspace")
          }
          if (Option.isNone(user)) {
            const name = typeof claims?.name === "string" ? claims.name : email
            yield* users.insertUser({ id: randomUUID(), email, name, password_hash: null })
            user = yield* users.byEmail(email)
          }
          if (Option.isNone(user)) return yield* Effect.dieMessage("provisioned user vanished")
          yield* users.addMembership(st.tenant_id, user.value.id, row.value.default_role)
          membership = yield* users.membership(st.tenant_id, user.value.id)
          yield* audit.record(undefined, {
            tenantId: st.tenant_id,
            action: "user.provisioned_by_sso",
            resourceType: "user",
            resourceId: user.value.id
          })
        }
        if (Option.isNone(user) || Option.isNone(membership) || membership.value.status !== "active") {
          return yield* forbidden("This account is not active in the workspace")
        }
        return yield* sessions.issue(user.value, membership.value, ["sso"])
      }).pipe(Effect.withSpan("Sso.callback"))

    return { getConfig, putConfig, deleteConfig, forEmail, continueUrl, callback }
  })
}) {}

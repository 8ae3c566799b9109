import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import * as oidc from "openid-client"
import { Audit } from "../../platform/Audit.js"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { forbidden, notFound, unauthorized } from "../../schemas/Errors.js"
import { TenantId } from "../../schemas/Ids.js"
import { Sessions } from "./Sessions.js"
import { SsoClients } from "./SsoClients.js"
import { SsoConfigs } from "./SsoConfigs.js"
import { SsoDomains } from "./SsoDomains.js"
import { Tokens } from "./Tokens.js"
import { UsersRepo } from "./UsersRepo.js"

const STATE_TTL_MS = 10 * 60_000

/**
 * OpenID Connect sign-in (authorization code + PKCE, state and nonce) through a workspace's
 * identity provider. What that provider asserts is trusted for that workspace only: it signs in
 * only addresses of the domains the workspace holds approved (SsoDomains), and the session it
 * gives never moves to another workspace (Sessions.switchTenant).
 */
export class Sso extends Effect.Service<Sso>()("Sso", {
  dependencies: [Sessions.Default, SsoClients.Default, SsoConfigs.Default, SsoDomains.Default, Tokens.Default, UsersRepo.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tokens = yield* Tokens
    const sessions = yield* Sessions
    const users = yield* UsersRepo
    const audit = yield* Audit
    const configs = yield* SsoConfigs
    const clients = yield* SsoClients
    const domains = yield* SsoDomains
    const redirectUri = configs.redirectUri

    const load = configs.load
    const clientFor = clients.clientFor

    /** The workspace whose enabled SSO holds this email's domain (approved by an env_admin). */
    const forEmail = (email: string) => domains.tenantFor(email)

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
        const states = yield* sql`
          DELETE FROM sso_states WHERE state = ${state} AND expires_at > now()
          RETURNING tenant_id, code_verifier, nonce`.pipe(
          decodeRows("sso_states", Schema.Struct({ tenant_id: TenantId, code_verifier: Schema.String, nonce: Schema.String }))
        ).pipe(Effect.orDie)
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
        if (email === undefined || claims?.email_verified === false) {
          return yield* unauthorized("The identity provider returned no verified email", "SSO_NO_EMAIL")
        }
        if (!(yield* domains.holds(st.tenant_id, email))) {
          yield* audit.record(undefined, {
            tenantId: st.tenant_id,
            action: "auth.sso_refused",
            resourceType: "tenant",
            resourceId: st.tenant_id,
            details: { email }
          })
          return yield* unauthorized("The identity provider may only sign in addresses of this workspace's approved domains", "SSO_REFUSED")
        }
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
      })

    return traced("Sso", { forEmail, continueUrl, callback })
  })
}) {}

import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { fetch as undiciFetch } from "undici"
import { AppConfig } from "../../platform/Config.js"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { cappedJson, MAX_TOKEN_ANSWER_BYTES } from "../../platform/outbound/CappedJson.js"
import { OutboundGuard } from "../../platform/outbound/OutboundGuard.js"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { requireReader } from "../../schemas/Authorization.js"
import { badRequest, notFound, unprocessable } from "../../schemas/Errors.js"
import { IntegrationAuth } from "../../schemas/Integration.js"
import type { Principal } from "../../schemas/Principal.js"
import { isRecord } from "../../schemas/Records.js"
import { type ConnectionRow, connectionRows, InstallSecrets } from "./InstallSecrets.js"

const STATE_MINUTES = 10
/** A token this close to its expiry is refreshed before use. */
const REFRESH_MARGIN_MS = 30_000

interface Tokens {
  readonly access_token: string
  readonly refresh_token?: string | undefined
}

const base64url = (bytes: Buffer) => bytes.toString("base64url")
const connectionAad = (integrationId: string, userId: string) => `oauth:${integrationId}:${userId}`

/**
 * Per-user OAuth 2.0 connections to an integration: authorization code with PKCE (S256) and a
 * one-time state bound to the user, the code exchanged and tokens refreshed at the entry's token
 * URL through the outbound guard, the tokens sealed. The install's credentials hold the client.
 */
export class OAuthConnections extends Effect.Service<OAuthConnections>()("OAuthConnections", {
  dependencies: [InstallSecrets.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* CredentialsCipher
    const guard = yield* OutboundGuard
    const config = yield* AppConfig
    const secrets = yield* InstallSecrets

    /** The install's OAuth setup: the entry's URLs and the stored client. */
    const setup = (tenantId: string, integrationId: string) =>
      Effect.gen(function*() {
        const [row] = yield* sql`SELECT e.auth FROM tenant_integrations i JOIN catalog_entries e ON e.id = i.catalog_id
          WHERE i.tenant_id = ${tenantId} AND i.id = ${integrationId}`.pipe(decodeRows("tenant_integrations", Schema.Struct({ auth: Schema.Unknown }))).pipe(
          Effect.orDie
        )
        if (row === undefined) return yield* notFound("Integration")
        const auth = Schema.decodeUnknownOption(IntegrationAuth)(row.auth)
        if (Option.isNone(auth) || auth.value.type !== "oauth2") {
          return yield* unprocessable("OAUTH_NOT_CONFIGURED", "This integration does not sign in with OAuth 2.0")
        }
        const client = Option.getOrElse(yield* secrets.credentials(tenantId, integrationId), (): Record<string, unknown> => ({}))
        if (typeof client.client_id !== "string") {
          return yield* unprocessable("OAUTH_NOT_CONFIGURED", "Store the OAuth client (client_id, client_secret) as the integration's credentials first")
        }
        return { auth: auth.value, clientId: client.client_id, clientSecret: typeof client.client_secret === "string" ? client.client_secret : undefined }
      })

    /** POSTs a form to the token URL (through the guard); the answer's tokens, or why not. */
    const tokenRequest = (tokenUrl: string, form: Record<string, string>) =>
      Effect.tryPromise({
        try: async () => {
          const response = await undiciFetch(tokenUrl, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
            body: new URLSearchParams(form).toString(),
            dispatcher: guard.dispatcher,
            signal: AbortSignal.timeout(15_000)
          })
          const body = await cappedJson(response, MAX_TOKEN_ANSWER_BYTES)
          if (!response.ok || !isRecord(body) || typeof body.access_token !== "string") {
            throw new Error(`the token endpoint answered ${response.status}${isRecord(body) && typeof body.error === "string" ? ` (${body.error})` : ""}`)
          }
          return body
        },
        catch: (error) => error instanceof Error ? error : new Error(String(error))
      })

    const store = (integrationId: string, userId: string, body: Record<string, unknown>, previous?: Tokens) =>
      Effect.gen(function*() {
        const tokens: Tokens = {
          access_token: String(body.access_token),
          refresh_token: typeof body.refresh_token === "string" ? body.refresh_token : previous?.refresh_token
        }
        const sealed = yield* cipher.encrypt(JSON.stringify(tokens), connectionAad(integrationId, userId))
        const expiresAt = typeof body.expires_in === "number" ? new Date(Date.now() + body.expires_in * 1000) : null
        const [row] = yield* sql`INSERT INTO integration_connections ${
          sql.insert({
            integration_id: integrationId,
            user_id: userId,
            sealed,
            scope: typeof body.scope === "string" ? body.scope : null,
            expires_at: expiresAt
          })
        } ON CONFLICT (integration_id, user_id) DO UPDATE SET sealed = EXCLUDED.sealed, scope = COALESCE(EXCLUDED.scope, integration_connections.scope),
          expires_at = EXCLUDED.expires_at, updated_at = now() RETURNING *`.pipe(connectionRows, Effect.orDie)
        return { row: row, tokens }
      })

    const view = (row: ConnectionRow, tokens: Tokens) => ({
      integration_id: row.integration_id,
      connected: true,
      scope: row.scope,
      expires_at: row.expires_at,
      has_refresh_token: tokens.refresh_token !== undefined,
      created_at: row.created_at,
      updated_at: row.updated_at
    })

    const open = (row: ConnectionRow) =>
      Effect.map(cipher.decrypt(row.sealed, connectionAad(row.integration_id, row.user_id)).pipe(Effect.orDie), (plain) => JSON.parse(plain) as Tokens)

    const authorize = (principal: Principal, integrationId: string, redirectUri: string | undefined) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const { auth, clientId } = yield* setup(principal.tenantId, integrationId)
        if (auth.type !== "oauth2") return yield* unprocessable("OAUTH_NOT_CONFIGURED", "This integration does not sign in with OAuth 2.0")
        const state = base64url(randomBytes(32))
        const verifier = base64url(randomBytes(48))
        const redirect = redirectUri ?? `${config.publicBaseUrl}/integrations/oauth2/callback`
        const expiresAt = new Date(Date.now() + STATE_MINUTES * 60_000)
        yield* sql`INSERT INTO integration_oauth_states ${
          sql.insert({
            state,
            integration_id: integrationId,
            user_id: principal.userId,
            code_verifier_sealed: yield* cipher.encrypt(verifier, `oauth-state:${state}`),
            redirect_uri: redirect,
            expires_at: expiresAt
          })
        }`.pipe(Effect.orDie)
        const url = new URL(auth.authorize_url)
        url.searchParams.set("response_type", "code")
        url.searchParams.set("client_id", clientId)
        url.searchParams.set("redirect_uri", redirect)
        url.searchParams.set("state", state)
        url.searchParams.set("code_challenge", base64url(createHash("sha256").update(verifier).digest()))
        url.searchParams.set("code_challenge_method", "S256")
        if (auth.scopes.length > 0) url.searchParams.set("scope", auth.scopes.join(" "))
        // Refresh tokens are only granted for offline access after consent.
        if (auth.scopes.includes("offline_access")) url.searchParams.set("prompt", "consent")
        return { authorization_url: url.toString(), state, expires_at: expiresAt }
      })

    const callback = (principal: Principal, integrationId: string, code: string, state: string) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const [pending] = yield* sql`DELETE FROM integration_oauth_states
          WHERE state = ${state} AND integration_id = ${integrationId} AND user_id = ${principal.userId} AND expires_at > now()
          RETURNING code_verifier_sealed, redirect_uri`.pipe(
          decodeRows("integration_oauth_states", Schema.Struct({ code_verifier_sealed: Schema.String, redirect_uri: Schema.String }))
        ).pipe(Effect.orDie)
        if (pending === undefined) return yield* badRequest("OAUTH_STATE_INVALID", "This state is unknown, used, expired or another user's: start again")
        const { auth, clientId, clientSecret } = yield* setup(principal.tenantId, integrationId)
        if (auth.type !== "oauth2") return yield* unprocessable("OAUTH_NOT_CONFIGURED", "This integration does not sign in with OAuth 2.0")
        const verifier = yield* cipher.decrypt(pending.code_verifier_sealed, `oauth-state:${state}`).pipe(Effect.orDie)
        const body = yield* tokenRequest(auth.token_url, {
          grant_type: "authorization_code",
          code,
          redirect_uri: pending.redirect_uri,
          code_verifier: verifier,
          client_id: clientId,
          ...(clientSecret !== undefined ? { client_secret: clientSecret } : {})
        }).pipe(Effect.mapError((e) => unprocessable("OAUTH_EXCHANGE_FAILED", `The code exchange failed: ${e.message}`)))
        const { row, tokens } = yield* store(integrationId, principal.userId, body)
        return view(row, tokens)
      })

    const find = secrets.connection

    const mine = (principal: Principal, integrationId: string) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        yield* setup(principal.tenantId, integrationId).pipe(Effect.catchTag("Unprocessable", () => Effect.void))
        const row = yield* find(principal.tenantId, integrationId, principal.userId)
        if (Option.isNone(row)) return yield* notFound("Connection")
        return view(row.value, yield* open(row.value))
      })

    const revoke = (principal: Principal, integrationId: string) =>
      Effect.gen(function*() {
        yield* mine(principal, integrationId)
        yield* sql`DELETE FROM integration_connections WHERE integration_id = ${integrationId} AND user_id = ${principal.userId}`.pipe(Effect.orDie)
      })

    /** The user's access token for a call, refreshed first when it is (nearly) expired; none without a connection. */
    const accessToken = (tenantId: string, integrationId: string, userId: string | null) =>
      Effect.gen(function*() {
        if (userId === null) return undefined
        const row = yield* find(tenantId, integrationId, userId)
        if (Option.isNone(row)) return undefined
        const tokens = yield* open(row.value)
        const expiring = row.value.expires_at !== null && row.value.expires_at.getTime() - Date.now() < REFRESH_MARGIN_MS
        if (!expiring || tokens.refresh_token === undefined) return tokens.access_token
        const { auth, clientId, clientSecret } = yield* setup(tenantId, integrationId).pipe(Effect.orDie)
        if (auth.type !== "oauth2") return tokens.access_token
        const refreshed = yield* tokenRequest(auth.token_url, {
          grant_type: "refresh_token",
          refresh_token: tokens.refresh_token,
          client_id: clientId,
          ...(clientSecret !== undefined ? { client_secret: clientSecret } : {})
        }).pipe(Effect.either)
        if (refreshed._tag === "Left") return tokens.access_token
        return (yield* store(integrationId, userId, refreshed.right, tokens)).tokens.access_token
      })

    return traced("OAuthConnections", { authorize, callback, mine, revoke, accessToken })
  })
}) {}

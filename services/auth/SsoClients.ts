import { Effect } from "effect"
import * as oidc from "openid-client"
import { fetch as undiciFetch } from "undici"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { cappedResponse } from "../../platform/outbound/CappedJson.js"
import { OutboundGuard } from "../../platform/outbound/OutboundGuard.js"
import { traced } from "../../platform/Traced.js"
import { unauthorized } from "../../schemas/Errors.js"

/** What an identity provider may answer (discovery, keys, tokens, userinfo): a few kilobytes. */
const MAX_IDP_ANSWER_BYTES = 1024 * 1024
const IDP_TIMEOUT_MS = 10_000

const isLoopback = (url: URL) => ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)

export interface SsoClientConfig {
  readonly tenant_id: string
  readonly issuer: string
  readonly client_id: string
  readonly client_secret_enc: string | null
}

/**
 * OpenID Connect clients of the workspaces' identity providers. Every request one makes
 * (discovery, JWKS, token, userinfo) goes through the outbound guard: an issuer is a
 * tenant-supplied URL, and so are the endpoints its metadata names. Answers are read within a
 * cap and a time limit. Discovered clients are kept per workspace until its configuration changes.
 */
export class SsoClients extends Effect.Service<SsoClients>()("SsoClients", {
  effect: Effect.gen(function*() {
    const guard = yield* OutboundGuard
    const cipher = yield* CredentialsCipher
    const discovered = new Map<string, oidc.Configuration>()

    const guardedFetch: oidc.CustomFetch = (url, options) =>
      undiciFetch(url, {
        ...(options as Parameters<typeof undiciFetch>[1]),
        dispatcher: guard.dispatcher,
        signal: options.signal ?? AbortSignal.timeout(IDP_TIMEOUT_MS)
      }).then((response) => cappedResponse(response, MAX_IDP_ANSWER_BYTES))

    const clientFor = (row: SsoClientConfig) =>
      Effect.gen(function*() {
        const cached = discovered.get(row.tenant_id)
        if (cached !== undefined) return cached
        const secret = row.client_secret_enc === null
          ? undefined
          : yield* cipher.decrypt(row.client_secret_enc, `sso:${row.tenant_id}`).pipe(Effect.orDie)
        const issuer = new URL(row.issuer)
        const client = yield* Effect.tryPromise(() =>
          oidc.discovery(issuer, row.client_id, secret, secret === undefined ? oidc.None() : oidc.ClientSecretPost(secret), {
            [oidc.customFetch]: guardedFetch,
            ...(issuer.protocol === "http:" && isLoopback(issuer) ? { execute: [oidc.allowInsecureRequests] } : {})
          })
        ).pipe(
          Effect.tapError((e) => Effect.logWarning("OIDC discovery failed", e.error)),
          Effect.mapError(() => unauthorized("The identity provider could not be reached", "SSO_UNAVAILABLE"))
        )
        discovered.set(row.tenant_id, client)
        return client
      })

    return traced("SsoClients", { clientFor, forget: (tenantId: string) => discovered.delete(tenantId), checkIssuer: guard.checkUrl })
  })
}) {}

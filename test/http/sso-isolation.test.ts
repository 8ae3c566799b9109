import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { freePort } from "../../platform/FreePort.js"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { CLIENT_ID, CLIENT_SECRET, OidcProvider, signInThroughProvider } from "../support/OidcProvider.js"
import { ADMIN_EMAIL, TestPlatformLive } from "../support/TestPlatform.js"

// Issue 31, points 1 and 3: a workspace's identity provider is trusted for that workspace only,
// email domains are claimed through an env_admin, and the provider's URLs go through the guard.

const Live = Layer.unwrapEffect(
  Effect.map(freePort, (port) => {
    const redirectUri = `http://127.0.0.1:${port}/api/v1/auth/auth/sso/callback`
    return TestPlatformLive({ env: { PORT: String(port), OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" } }).pipe(Layer.merge(OidcProvider.layer(redirectUri)))
  })
)

/** A loopback server that counts what reaches it (no tenant URL may: 127.0.0.3 is not allowed). */
const canary = Effect.acquireRelease(
  Effect.async<{ port: number; hits: () => number; close: () => void }>((resume) => {
    let hits = 0
    const server = createServer((req, res) => {
      hits++
      req.resume()
      res.end("{}")
    })
    server.listen(0, "127.0.0.3", () => resume(Effect.succeed({ port: (server.address() as AddressInfo).port, hits: () => hits, close: () => server.close() })))
  }),
  (c) => Effect.sync(() => c.close())
)

/** An "identity provider" on an allowed address whose metadata sends the token request to `tokenEndpoint`. */
const lyingIssuer = (tokenEndpoint: string) =>
  Effect.acquireRelease(
    Effect.async<{ issuer: string; close: () => void }>((resume) => {
      const server = createServer((req, res) => {
        const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        req.resume()
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: tokenEndpoint,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ["code"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"]
        }))
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          close: () => server.close()
        })))
    }),
    (s) => Effect.sync(() => s.close())
  )

const signInVia = (email: string, login: string) =>
  Effect.gen(function*() {
    const begin = yield* http("POST", "/api/v1/auth/auth/begin", { body: { email } })
    assert.strictEqual(begin.body.method, "sso", begin.text)
    const cont = yield* http("GET", `/api/v1/auth/auth/sso/continue?token=${encodeURIComponent(begin.body.continuation_token)}`)
    const callback = new URL(yield* signInThroughProvider(cont.headers.get("location") as string, login))
    return yield* http("GET", `${callback.pathname}${callback.search}`)
  })

layer(Live, { excludeTestServices: true, timeout: "60 seconds" })("SSO isolation across tenants", (it) => {
  it.effect("another tenant's identity provider takes over no account: domains are approved by an env_admin, held by one tenant, and an SSO session never leaves its tenant", () =>
    Effect.gen(function*() {
      const envAdmin = yield* adminToken
      const { issuer } = yield* OidcProvider
      const acme = (yield* http("GET", "/api/v1/auth/users/me", { token: envAdmin })).body.user.tenant_id as string
      const evil = yield* createTenant(envAdmin, `evil-${Date.now()}`)
      const evilAdmin = yield* createMember(envAdmin, "system_admin", { tenantId: evil.id })
      const evilToken = yield* loginToken(evilAdmin.email, evilAdmin.password, evil.slug)
      const dual = yield* createMember(envAdmin, "env_admin", { email: `dual.${Date.now()}@evil.example` })

      // B's admin claims its own domain and acme's: both wait for an env_admin; sign-in is unchanged.
      const put = yield* http("PUT", `/api/v1/auth/tenants/${evil.id}/sso`, {
        token: evilToken,
        body: {
          issuer,
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          email_domains: ["evil.example", "acme.test"],
          auto_provision: true,
          default_role: "builder"
        }
      })
      assert.strictEqual(put.status, 200, put.text)
      assert.deepStrictEqual(put.body.email_domain_claims.map((c: { domain: string; status: string }) => `${c.domain}:${c.status}`), [
        "acme.test:pending",
        "evil.example:pending"
      ])
      assert.strictEqual((yield* http("POST", "/api/v1/auth/auth/begin", { body: { email: ADMIN_EMAIL } })).body.method, "password")
      assert.strictEqual((yield* http("POST", "/api/v1/auth/auth/begin", { body: { email: dual.email } })).body.method, "password")
      assert.strictEqual((yield* http("GET", "/api/v1/auth/sso/domain-claims", { token: evilToken })).status, 403, "only an env_admin reviews claims")
      const pending = yield* http("GET", "/api/v1/auth/sso/domain-claims?status=pending", { token: envAdmin })
      assert.includeMembers(pending.body.items.map((c: { domain: string }) => c.domain), ["acme.test", "evil.example"])
      assert.strictEqual((yield* http("POST", `/api/v1/auth/tenants/${evil.id}/sso/domains/evil.example/approve`, { token: evilToken })).status, 403)
      assert.strictEqual((yield* http("POST", `/api/v1/auth/tenants/${evil.id}/sso/domains/acme.test/reject`, { token: envAdmin })).body.status, "rejected")
      assert.strictEqual((yield* http("POST", `/api/v1/auth/tenants/${evil.id}/sso/domains/evil.example/approve`, { token: envAdmin })).body.status, "approved")

      // A domain another tenant holds cannot be claimed, not even by an env_admin's own setting.
      const taken = yield* http("PUT", `/api/v1/auth/tenants/${acme}/sso`, {
        token: envAdmin,
        body: { issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET, email_domains: ["evil.example"] }
      })
      assert.strictEqual(taken.status, 409, taken.text)
      assert.strictEqual(taken.body.code, "EMAIL_DOMAIN_CLAIMED")
      assert.strictEqual((yield* http("GET", `/api/v1/auth/tenants/${acme}/sso`, { token: envAdmin })).status, 404, "nothing half-written")

      // B's provider asserts acme's env_admin: outside B's approved domains, refused.
      const takeover = yield* signInVia(`x@evil.example`, ADMIN_EMAIL)
      assert.strictEqual(takeover.status, 401, takeover.text)
      assert.strictEqual(takeover.body.code, "SSO_REFUSED")
      const members = yield* http("GET", "/api/v1/auth/users?page_size=100", { token: evilToken })
      assert.notInclude(members.body.items.map((u: { email: string }) => u.email), ADMIN_EMAIL)

      // An address of B's domain that is also acme's env_admin: signed into B, never into acme.
      const ssoSession = yield* signInVia(dual.email, dual.email)
      assert.strictEqual(ssoSession.status, 200, ssoSession.text)
      assert.strictEqual(ssoSession.body.user.tenant_id, evil.id)
      const into = yield* http("POST", "/api/v1/auth/switch-tenant", { token: ssoSession.body.access_token, body: { target_tenant_id: acme } })
      assert.strictEqual(into.status, 403, into.text)
      assert.strictEqual(into.body.code, "REAUTHENTICATION_REQUIRED")
      // Signed in to acme with acme's own rules (the password), the same person may switch.
      const byPassword = yield* loginToken(dual.email, dual.password, "acme")
      const switched = yield* http("POST", "/api/v1/auth/switch-tenant", { token: byPassword, body: { target_tenant_id: evil.id } })
      assert.strictEqual(switched.status, 200, switched.text)
      assert.strictEqual(switched.body.user.tenant_id, evil.id)

      const audit = yield* http("GET", `/api/v1/auth/audit-events?page_size=100`, { token: evilToken })
      assert.include(audit.body.items.map((e: { action: string }) => e.action), "auth.sso_refused")
    }))

  it.scoped("the issuer and every URL its metadata names go through the outbound guard", () =>
    Effect.gen(function*() {
      const envAdmin = yield* adminToken
      const c = yield* canary
      const tenant = yield* createTenant(envAdmin, `guarded-${Date.now()}`)
      const refused = yield* http("PUT", `/api/v1/auth/tenants/${tenant.id}/sso`, {
        token: envAdmin,
        body: { issuer: `http://127.0.0.3:${c.port}/idp`, client_id: "x", email_domains: ["guarded.example"] }
      })
      assert.strictEqual(refused.status, 422, refused.text)
      assert.strictEqual(refused.body.code, "OUTBOUND_ADDRESS_REFUSED")

      // An allowed issuer whose metadata sends the code exchange to a refused address.
      const idp = yield* lyingIssuer(`http://127.0.0.3:${c.port}/token`)
      const put = yield* http("PUT", `/api/v1/auth/tenants/${tenant.id}/sso`, {
        token: envAdmin,
        body: { issuer: idp.issuer, client_id: "x", client_secret: "y", email_domains: ["guarded.example"] }
      })
      assert.strictEqual(put.status, 200, put.text)
      const begin = yield* http("POST", "/api/v1/auth/auth/begin", { body: { email: "someone@guarded.example" } })
      const cont = yield* http("GET", `/api/v1/auth/auth/sso/continue?token=${encodeURIComponent(begin.body.continuation_token)}`)
      assert.strictEqual(cont.status, 302, cont.text)
      const state = new URL(cont.headers.get("location") as string).searchParams.get("state")
      const callback = yield* http("GET", `/api/v1/auth/auth/sso/callback?code=abc&state=${state}&iss=${encodeURIComponent(idp.issuer)}`)
      assert.strictEqual(callback.status, 401, callback.text)
      assert.strictEqual(callback.body.code, "SSO_EXCHANGE_FAILED")
      assert.strictEqual(c.hits(), 0, "nothing reached the refused address")
    }))
})

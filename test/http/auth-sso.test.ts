import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { freePort } from "../../platform/FreePort.js"
import { cookieHeader, cookieValue, setCookies } from "../support/Cookies.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { CLIENT_ID, CLIENT_SECRET, OidcProvider, signInThroughProvider } from "../support/OidcProvider.js"
import { TestPlatformLive } from "../support/TestPlatform.js"

const Live = Layer.unwrapEffect(
  Effect.map(freePort, (port) => {
    const redirectUri = `http://127.0.0.1:${port}/api/v1/auth/auth/sso/callback`
    // The identity provider is on 127.0.0.1: an operator allows it like any tenant-supplied address.
    return TestPlatformLive({ env: { PORT: String(port), OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" } }).pipe(Layer.merge(OidcProvider.layer(redirectUri)))
  })
)

const configure = (body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const admin = yield* adminToken
    const { issuer } = yield* OidcProvider
    const me = yield* http("GET", "/api/v1/auth/users/me", { token: admin })
    const tenantId = me.body.user.tenant_id as string
    const put = yield* http("PUT", `/api/v1/auth/tenants/${tenantId}/sso`, {
      token: admin,
      body: { issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET, email_domains: ["sso.test"], ...body }
    })
    return { put, tenantId, admin }
  })

const startSignIn = (email: string) =>
  Effect.gen(function*() {
    const begin = yield* http("POST", "/api/v1/auth/auth/begin", { body: { email } })
    assert.strictEqual(begin.body.method, "sso")
    const cont = yield* http("GET", `/api/v1/auth/auth/sso/continue?token=${encodeURIComponent(begin.body.continuation_token)}`)
    assert.strictEqual(cont.status, 302)
    return cont.headers.get("location") as string
  })

layer(Live, { excludeTestServices: true })("auth: SSO over OpenID Connect", (it) => {
  it.effect("IdP settings per tenant: the client secret is stored encrypted and never returned", () =>
    Effect.gen(function*() {
      const { put, tenantId, admin } = yield* configure({ auto_provision: true, default_role: "builder" })
      assert.strictEqual(put.status, 200)
      assert.isTrue(put.body.has_client_secret)
      assert.notInclude(put.text, CLIENT_SECRET)
      assert.match(put.body.redirect_uri, /\/api\/v1\/auth\/auth\/sso\/callback$/)
      const got = yield* http("GET", `/api/v1/auth/tenants/${tenantId}/sso`, { token: admin })
      assert.deepStrictEqual(got.body.email_domains, ["sso.test"])
      assert.notInclude(got.text, CLIENT_SECRET)
    }))

  it.effect("begin -> continue (PKCE, state, nonce) -> provider -> callback signs the user in", () =>
    Effect.gen(function*() {
      yield* configure({ auto_provision: true, default_role: "builder" })
      const location = yield* startSignIn("alice@sso.test")
      const authorize = new URL(location)
      assert.strictEqual(authorize.searchParams.get("code_challenge_method"), "S256")
      assert.isString(authorize.searchParams.get("state"))
      assert.isString(authorize.searchParams.get("nonce"))
      const callback = yield* signInThroughProvider(location, "alice@sso.test")
      const url = new URL(callback)
      const result = yield* http("GET", `${url.pathname}${url.search}`)
      assert.strictEqual(result.status, 200)
      assert.isString(result.body.access_token)
      assert.strictEqual(result.body.user.email, "alice@sso.test")
      assert.strictEqual(result.body.user.role, "builder")
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: result.body.access_token })
      assert.strictEqual(me.status, 200)
      // The browser that came back from the provider holds the session as cookies.
      const cookies = setCookies(result.headers)
      assert.strictEqual(cookieValue(cookies.access_token), result.body.access_token)
      const byCookie = yield* http("GET", "/api/v1/auth/users/me", { headers: { cookie: cookieHeader(cookies, ["access_token"]) } })
      assert.strictEqual(byCookie.body.user.email, "alice@sso.test")
      // The state is single-use.
      const replay = yield* http("GET", `${url.pathname}${url.search}`)
      assert.strictEqual(replay.status, 401)
    }))

  it.effect("without auto-provisioning an unknown account is refused", () =>
    Effect.gen(function*() {
      yield* configure({ auto_provision: false })
      const location = yield* startSignIn("mallory@sso.test")
      const callback = new URL(yield* signInThroughProvider(location, "mallory@sso.test"))
      const result = yield* http("GET", `${callback.pathname}${callback.search}`)
      assert.strictEqual(result.status, 403)
    }))

  it.effect("a forged state or a bad continuation token is refused", () =>
    Effect.gen(function*() {
      const forged = yield* http("GET", "/api/v1/auth/auth/sso/callback?code=abc&state=forged")
      assert.strictEqual(forged.status, 401)
      assert.strictEqual(forged.body.code, "SSO_INVALID_STATE")
      const bad = yield* http("GET", "/api/v1/auth/auth/sso/continue?token=nope")
      assert.strictEqual(bad.status, 401)
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes, scryptSync } from "node:crypto"
import { adminToken, createMember, createTenant, uniqueEmail } from "../support/Fixtures.js"
import { http, login, loginToken } from "../support/Http.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatformLive, withPlatformDb } from "../support/TestPlatform.js"

layer(TestPlatformLive(), { excludeTestServices: true })("auth: sign-in and tokens", (it) => {
  it.effect("login returns tokens and the user; the access token works", () =>
    Effect.gen(function*() {
      const r = yield* login(ADMIN_EMAIL, ADMIN_PASSWORD)
      assert.strictEqual(r.status, 200)
      assert.isString(r.body.access_token)
      assert.isString(r.body.refresh_token)
      assert.strictEqual(r.body.user.email, ADMIN_EMAIL)
      assert.strictEqual(r.body.user.role, "env_admin")
      assert.strictEqual(r.body.user.status, "active")
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: r.body.access_token })
      assert.strictEqual(me.status, 200)
      assert.strictEqual(me.body.user.id, r.body.user.id)
    }))

  it.effect("wrong password and unknown email are the same 401", () =>
    Effect.gen(function*() {
      const wrong = yield* login(ADMIN_EMAIL, "nope-nope")
      const unknown = yield* login("ghost@example.test", "nope-nope")
      assert.strictEqual(wrong.status, 401)
      assert.strictEqual(unknown.status, 401)
      assert.strictEqual(wrong.body.code, "INVALID_CREDENTIALS")
      assert.strictEqual(unknown.body.code, wrong.body.code)
    }))

  it.effect("email-first picks a membership; tenant-pinned login signs into the named tenant", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const other = yield* createTenant(admin, "pinned-co")
      const member = yield* createMember(admin, "builder")
      // Same identity gets a membership in the second tenant; its password is unchanged.
      const again = yield* http("POST", "/api/v1/auth/users", {
        token: admin,
        body: { email: member.email, name: "x", password: "different-password", role: "user", tenant_id: other.id }
      })
      assert.strictEqual(again.status, 201)
      assert.strictEqual(again.body.role, "user")
      const pinned = yield* login(member.email, member.password, "pinned-co")
      assert.strictEqual(pinned.status, 200)
      assert.strictEqual(pinned.body.user.tenant_id, other.id)
      assert.strictEqual(pinned.body.user.role, "user")
      const notMember = yield* login(member.email, member.password, "no-such-tenant")
      assert.strictEqual(notMember.status, 401)
      const emailFirst = yield* login(member.email, member.password)
      assert.strictEqual(emailFirst.status, 200)
      const tenants = yield* http("GET", "/api/v1/auth/users/me/tenants", { token: emailFirst.body.access_token })
      assert.strictEqual(tenants.body.items.length, 2)
      // switch-tenant returns a LoginResponse scoped to the target
      const switched = yield* http("POST", "/api/v1/auth/switch-tenant", {
        token: pinned.body.access_token,
        body: { target_tenant_id: tenants.body.items.find((t: { slug: string }) => t.slug === "acme").tenant_id }
      })
      assert.strictEqual(switched.status, 200)
      assert.strictEqual(switched.body.user.role, "builder")
      const stranger = yield* http("POST", "/api/v1/auth/switch-tenant", {
        token: pinned.body.access_token,
        body: { target_tenant_id: "00000000-0000-4000-8000-000000000000" }
      })
      assert.strictEqual(stranger.status, 404)
    }))

  it.effect("refresh returns only a new access token and is not rotated", () =>
    Effect.gen(function*() {
      const r = yield* login(ADMIN_EMAIL, ADMIN_PASSWORD)
      const refreshed = yield* http("POST", "/api/v1/auth/refresh", { body: { refresh_token: r.body.refresh_token } })
      assert.strictEqual(refreshed.status, 200)
      assert.isString(refreshed.body.access_token)
      assert.isUndefined(refreshed.body.refresh_token)
      const twice = yield* http("POST", "/api/v1/auth/refresh", { body: { refresh_token: r.body.refresh_token } })
      assert.strictEqual(twice.status, 200)
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: refreshed.body.access_token })
      assert.strictEqual(me.status, 200)
    }))

  it.effect("a refresh token is never accepted as an access token, nor the reverse", () =>
    Effect.gen(function*() {
      const r = yield* login(ADMIN_EMAIL, ADMIN_PASSWORD)
      const asAccess = yield* http("GET", "/api/v1/auth/users/me", { token: r.body.refresh_token })
      assert.strictEqual(asAccess.status, 401)
      const asRefresh = yield* http("POST", "/api/v1/auth/refresh", { body: { refresh_token: r.body.access_token } })
      assert.strictEqual(asRefresh.status, 401)
      const garbage = yield* http("POST", "/api/v1/auth/refresh", { body: { refresh_token: "a.b.c" } })
      assert.strictEqual(garbage.status, 401)
    }))

  it.effect("Authorization present means JWT only: no fallback to a valid X-API-Key", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const key = yield* http("POST", "/api/v1/auth/api-keys", { token, body: { name: "fallback" } })
      assert.strictEqual(key.status, 201)
      const withKey = yield* http("GET", "/api/v1/auth/users/me", { apiKey: key.body.key })
      assert.strictEqual(withKey.status, 200)
      assert.strictEqual(withKey.body.auth_method, "api_key")
      const both = yield* http("GET", "/api/v1/auth/users/me", { apiKey: key.body.key, token: "not-a-jwt" })
      assert.strictEqual(both.status, 401)
      const basic = yield* http("GET", "/api/v1/auth/users/me", {
        apiKey: key.body.key,
        headers: { authorization: "Basic Zm9vOmJhcg==" }
      })
      assert.strictEqual(basic.status, 401)
    }))

  it.effect("repeated failed logins are throttled with 429 and Retry-After", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const member = yield* createMember(admin, "user")
      for (let i = 0; i < 5; i++) {
        const r = yield* login(member.email, "wrong-password")
        assert.strictEqual(r.status, 401)
      }
      const blocked = yield* login(member.email, "wrong-password")
      assert.strictEqual(blocked.status, 429)
      assert.strictEqual(blocked.body.code, "TOO_MANY_ATTEMPTS")
      assert.isAbove(Number(blocked.headers.get("retry-after")), 0)
      // Even the right password waits out the window.
      const right = yield* login(member.email, member.password)
      assert.strictEqual(right.status, 429)
    }))

  it.effect("auth/begin names the sign-in method", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const passwordless = uniqueEmail("otp")
      const created = yield* http("POST", "/api/v1/auth/users", {
        token: admin,
        body: { email: passwordless, name: "No Password", role: "user" }
      })
      assert.strictEqual(created.status, 201)
      const pw = yield* http("POST", "/api/v1/auth/auth/begin", { body: { email: ADMIN_EMAIL } })
      assert.deepStrictEqual(pw.body, { method: "password" })
      const otp = yield* http("POST", "/api/v1/auth/auth/begin", { body: { email: passwordless } })
      assert.deepStrictEqual(otp.body, { method: "otp" })
      // No enumeration: an unknown address looks like a password account.
      const unknown = yield* http("POST", "/api/v1/auth/auth/begin", { body: { email: "nobody@nowhere.test" } })
      assert.deepStrictEqual(unknown.body, { method: "password" })
    }))

  it.effect("a removed member's tokens and keys stop working at once", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const member = yield* createMember(admin, "builder")
      const token = yield* loginToken(member.email, member.password)
      const key = yield* http("POST", "/api/v1/auth/api-keys", { token, body: { name: "mine" } })
      assert.strictEqual(key.status, 201)
      const removed = yield* http("DELETE", `/api/v1/auth/users/${member.id}`, { token: admin })
      assert.strictEqual(removed.status, 204)
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users/me", { token })).status, 401)
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users/me", { apiKey: key.body.key })).status, 401)
    }))

  it.effect("a password hashed at another cost is hashed again at the configured one when its owner signs in", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const member = yield* createMember(admin, "user")
      const salt = randomBytes(16)
      const older = `scrypt$2048$8$1$${salt.toString("base64")}$${
        scryptSync(member.password, salt, 32, { N: 2048, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }).toString("base64")
      }`
      const storedHash = withPlatformDb((c) =>
        c.query("SELECT password_hash FROM users WHERE id = $1", [member.id]).then((r) => String(r.rows[0].password_hash))
      )
      yield* withPlatformDb((c) => c.query("UPDATE users SET password_hash = $1 WHERE id = $2", [older, member.id]))
      assert.strictEqual((yield* login(member.email, "not-the-password")).status, 401)
      assert.strictEqual(yield* storedHash, older, "a failed sign-in changes nothing")
      assert.strictEqual((yield* login(member.email, member.password)).status, 200)
      const renewed = yield* storedHash
      // The suites' platforms run at PASSWORD_HASH_COST=10.
      assert.match(renewed, /^scrypt\$1024\$8\$3\$/)
      assert.strictEqual((yield* login(member.email, member.password)).status, 200)
      assert.strictEqual(yield* storedHash, renewed, "a current hash is left as it is")
    }))
})

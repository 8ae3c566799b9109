import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Role } from "../../schemas/Roles.js"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { TestPlatformLive } from "../support/TestPlatform.js"

/** A new member of `role` and an API key they created (`body` adds to the key's fields). */
const memberWithKey = (admin: string, role: Role, body: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const member = yield* createMember(admin, role)
    const token = yield* loginToken(member.email, member.password)
    const key = yield* http("POST", "/api/v1/auth/api-keys", { token, body: { name: role, ...body } })
    return { member, key }
  })

layer(TestPlatformLive(), { excludeTestServices: true })("auth: API keys", (it) => {
  it.effect("create shows the secret once; list shows prefix, type, owner, revocation and expiry", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const expires = new Date(Date.now() + 3600_000).toISOString()
      const created = yield* http("POST", "/api/v1/auth/api-keys", {
        token,
        body: { name: "ci", expires_at: expires, operation_scope: ["read"], resource_scope: ["auth"] }
      })
      assert.strictEqual(created.status, 201)
      assert.match(created.body.key, /^bpk_/)
      assert.isTrue(created.body.key.startsWith(created.body.key_prefix))
      assert.strictEqual(created.body.key_type, "user")
      assert.strictEqual(created.body.expires_at, expires)
      const list = yield* http("GET", "/api/v1/auth/api-keys", { token })
      assert.strictEqual(list.status, 200)
      const listed = list.body.items.find((k: { id: string }) => k.id === created.body.id)
      assert.isUndefined(listed.key)
      assert.strictEqual(listed.key_prefix, created.body.key_prefix)
      assert.strictEqual(listed.revoked, false)
      assert.isString(listed.owner_user_id)
      assert.notInclude(list.text, created.body.key)
    }))

  it.effect("creating a key requires a JWT", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const key = yield* http("POST", "/api/v1/auth/api-keys", { token, body: { name: "a" } })
      const viaKey = yield* http("POST", "/api/v1/auth/api-keys", { apiKey: key.body.key, body: { name: "b" } })
      assert.strictEqual(viaKey.status, 403)
    }))

  it.effect("system keys need an admin role", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const builder = yield* createMember(admin, "builder")
      const builderToken = yield* loginToken(builder.email, builder.password)
      const refused = yield* http("POST", "/api/v1/auth/api-keys", {
        token: builderToken,
        body: { name: "sys", key_type: "system" }
      })
      assert.strictEqual(refused.status, 403)
      const ok = yield* http("POST", "/api/v1/auth/api-keys", { token: admin, body: { name: "sys", key_type: "system" } })
      assert.strictEqual(ok.status, 201)
      assert.strictEqual(ok.body.key_type, "system")
    }))

  it.effect("revocation is immediate", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const key = yield* http("POST", "/api/v1/auth/api-keys", { token, body: { name: "short-lived" } })
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users/me", { apiKey: key.body.key })).status, 200)
      const revoked = yield* http("DELETE", `/api/v1/auth/api-keys/${key.body.id}`, { token })
      assert.strictEqual(revoked.status, 204)
      const after = yield* http("GET", "/api/v1/auth/users/me", { apiKey: key.body.key })
      assert.strictEqual(after.status, 401)
      assert.strictEqual(after.body.code, "API_KEY_REVOKED")
      const list = yield* http("GET", "/api/v1/auth/api-keys", { token })
      assert.isTrue(list.body.items.find((k: { id: string }) => k.id === key.body.id).revoked)
    }))

  it.effect("an expired key is refused; a past expiry is refused at creation", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const past = yield* http("POST", "/api/v1/auth/api-keys", {
        token,
        body: { name: "old", expires_at: "2020-01-01T00:00:00Z" }
      })
      assert.strictEqual(past.status, 400)
      const soon = yield* http("POST", "/api/v1/auth/api-keys", {
        token,
        body: { name: "soon", expires_at: new Date(Date.now() + 1500).toISOString() }
      })
      assert.strictEqual(soon.status, 201)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1600)))
      const expired = yield* http("GET", "/api/v1/auth/users/me", { apiKey: soon.body.key })
      assert.strictEqual(expired.status, 401)
      assert.strictEqual(expired.body.code, "API_KEY_EXPIRED")
    }))

  it.effect("operation and resource scopes narrow what a key may do; PATCH changes them", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const key = yield* http("POST", "/api/v1/auth/api-keys", {
        token,
        body: { name: "reader", operation_scope: ["read"] }
      })
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users", { apiKey: key.body.key })).status, 200)
      const write = yield* http("POST", "/api/v1/auth/users", {
        apiKey: key.body.key,
        body: { email: "scoped@example.test", name: "S", role: "user" }
      })
      assert.strictEqual(write.status, 403)
      const patched = yield* http("PATCH", `/api/v1/auth/api-keys/${key.body.id}`, {
        token,
        body: { operation_scope: null, resource_scope: ["workflow"] }
      })
      assert.strictEqual(patched.status, 200)
      assert.strictEqual(patched.body.operation_scope, null)
      assert.deepStrictEqual(patched.body.resource_scope, ["workflow"])
      // The auth service is now outside the key's resource scope.
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users", { apiKey: key.body.key })).status, 403)
    }))

  it.effect("a member cannot touch another member's key; an admin can", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const a = yield* createMember(admin, "builder")
      const b = yield* createMember(admin, "builder")
      const aToken = yield* loginToken(a.email, a.password)
      const bToken = yield* loginToken(b.email, b.password)
      const key = yield* http("POST", "/api/v1/auth/api-keys", { token: aToken, body: { name: "a's" } })
      assert.strictEqual((yield* http("DELETE", `/api/v1/auth/api-keys/${key.body.id}`, { token: bToken })).status, 403)
      assert.strictEqual((yield* http("DELETE", `/api/v1/auth/api-keys/${key.body.id}`, { token: admin })).status, 204)
      const missing = yield* http("DELETE", "/api/v1/auth/api-keys/00000000-0000-4000-8000-000000000000", { token: admin })
      assert.strictEqual(missing.status, 404)
    }))

  it.effect("a key acts as its owner, with the owner's role", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const { member: u, key } = yield* memberWithKey(admin, "user")
      const me = yield* http("GET", "/api/v1/auth/users/me", { apiKey: key.body.key })
      assert.strictEqual(me.body.user.id, u.id)
      assert.strictEqual(me.body.user.role, "user")
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users", { apiKey: key.body.key })).status, 403)
    }))

  it.effect("a key reads its owner as they are now, records its use at most once a minute, and stops when the owner leaves", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const { member: u, key } = yield* memberWithKey(admin, "user")
      const listed = () =>
        http("GET", "/api/v1/auth/api-keys?page_size=100", { token: admin }).pipe(
          Effect.map((r) => r.body.items.find((k: { id: string }) => k.id === key.body.id) as { last_used_at: string | null })
        )
      assert.isNull((yield* listed()).last_used_at)
      const me = yield* http("GET", "/api/v1/auth/users/me", { apiKey: key.body.key })
      assert.deepStrictEqual(me.body, {
        user: { id: u.id, tenant_id: me.body.user.tenant_id, email: u.email, name: "user person", role: "user", status: "active" },
        auth_method: "api_key",
        totp_enabled: false
      })
      const used = (yield* listed()).last_used_at
      assert.isString(used)
      const renamed = yield* http("PATCH", `/api/v1/auth/users/${u.id}`, { token: admin, body: { name: "Renamed", role: "builder" } })
      assert.strictEqual(renamed.status, 200)
      const again = yield* http("GET", "/api/v1/auth/users/me", { apiKey: key.body.key })
      assert.strictEqual(again.body.user.name, "Renamed")
      assert.strictEqual(again.body.user.role, "builder")
      // Used again within the minute: the recorded use stays where it was.
      assert.strictEqual((yield* listed()).last_used_at, used)
      // Removing a member revokes their user keys; a system key outlives its owner's membership but not its use.
      const { member: sysAdmin, key: system } = yield* memberWithKey(admin, "system_admin", { key_type: "system" })
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users/me", { apiKey: system.body.key })).body.user.role, "system_admin")
      assert.strictEqual((yield* http("DELETE", `/api/v1/auth/users/${u.id}`, { token: admin })).status, 204)
      assert.strictEqual((yield* http("DELETE", `/api/v1/auth/users/${sysAdmin.id}`, { token: admin })).status, 204)
      const revoked = yield* http("GET", "/api/v1/auth/users/me", { apiKey: key.body.key })
      assert.strictEqual(revoked.body.code, "API_KEY_REVOKED")
      const orphaned = yield* http("GET", "/api/v1/auth/users/me", { apiKey: system.body.key })
      assert.strictEqual(orphaned.status, 401)
      assert.strictEqual(orphaned.body.code, "API_KEY_ORPHANED")
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { TestPlatformLive } from "../support/TestPlatform.js"

// A workspace keeps an active member at its highest admin role: its last holder cannot be demoted,
// disabled or removed (409 LAST_ADMIN, nothing changed), not even by themselves, nor by two admins
// demoting each other at the same moment.

const users = (token: string) =>
  http("GET", "/api/v1/auth/users?page_size=100", { token }).pipe(
    Effect.map((r) => r.body.items as ReadonlyArray<{ id: string; role: string; status: string }>)
  )

layer(TestPlatformLive({ redis: false }), { excludeTestServices: true })("the workspace's last admin", (it) => {
  it.effect("the last system_admin of a workspace cannot demote, disable or remove themselves; with a second one they can", () =>
    Effect.gen(function*() {
      const root = yield* adminToken
      const tenant = yield* createTenant(root, "floor-co")
      const first = yield* createMember(root, "system_admin", { tenantId: tenant.id })
      const firstToken = yield* loginToken(first.email, first.password)
      for (
        const attempt of [
          http("PATCH", `/api/v1/auth/users/${first.id}`, { token: firstToken, body: { role: "user_admin" } }),
          http("PATCH", `/api/v1/auth/users/${first.id}`, { token: firstToken, body: { status: "disabled" } }),
          http("DELETE", `/api/v1/auth/users/${first.id}`, { token: firstToken })
        ]
      ) {
        const refused = yield* attempt
        assert.strictEqual(refused.status, 409, refused.text)
        assert.strictEqual(refused.body.code, "LAST_ADMIN")
        assert.match(refused.body.message, /last active system_admin/)
      }
      const unchanged = (yield* users(firstToken)).find((u) => u.id === first.id)
      assert.deepInclude(unchanged, { role: "system_admin", status: "active" })

      // A member below the top role goes as before.
      const ua = yield* createMember(firstToken, "user_admin")
      assert.strictEqual((yield* http("DELETE", `/api/v1/auth/users/${ua.id}`, { token: firstToken })).status, 204)

      // With a second system_admin, the first may step down; then the second is the last.
      const second = yield* createMember(firstToken, "system_admin")
      const secondToken = yield* loginToken(second.email, second.password)
      const stepDown = yield* http("PATCH", `/api/v1/auth/users/${first.id}`, { token: firstToken, body: { role: "builder" } })
      assert.strictEqual(stepDown.status, 200, stepDown.text)
      const last = yield* http("DELETE", `/api/v1/auth/users/${second.id}`, { token: secondToken })
      assert.strictEqual(last.status, 409)
      assert.strictEqual(last.body.code, "LAST_ADMIN")
      assert.strictEqual((yield* http("PATCH", `/api/v1/auth/users/${first.id}`, { token: secondToken, body: { role: "system_admin" } })).status, 200)
    }))

  it.effect("two admins demoting each other at once: one change lands, the workspace keeps one", () =>
    Effect.gen(function*() {
      const root = yield* adminToken
      for (let round = 0; round < 5; round++) {
        const tenant = yield* createTenant(root, `floor-race-${round}`)
        const a = yield* createMember(root, "system_admin", { tenantId: tenant.id })
        const b = yield* createMember(root, "system_admin", { tenantId: tenant.id })
        const aToken = yield* loginToken(a.email, a.password)
        const bToken = yield* loginToken(b.email, b.password)
        const [ab, ba] = yield* Effect.all([
          http("PATCH", `/api/v1/auth/users/${b.id}`, { token: aToken, body: { role: "user" } }),
          http("PATCH", `/api/v1/auth/users/${a.id}`, { token: bToken, body: { role: "user" } })
        ], { concurrency: "unbounded" })
        // The loser is refused by the floor, or (its own demotion already read) by its role.
        assert.sameMembers([ab.status, ba.status].filter((s) => s === 200), [200], `${ab.text} ${ba.text}`)
        const winner = ab.status === 200 ? aToken : bToken
        const admins = (yield* users(winner)).filter((u) => u.role === "system_admin" && u.status === "active")
        assert.strictEqual(admins.length, 1)
      }
    }))

  it.effect("another workspace's admin cannot reach a member here: 404, nothing changed", () =>
    Effect.gen(function*() {
      const root = yield* adminToken
      const tenant = yield* createTenant(root, "floor-other")
      const outsider = yield* createMember(root, "system_admin", { tenantId: tenant.id })
      const outsiderToken = yield* loginToken(outsider.email, outsider.password)
      const victim = yield* createMember(root, "builder")
      assert.strictEqual((yield* http("PATCH", `/api/v1/auth/users/${victim.id}`, { token: outsiderToken, body: { role: "user" } })).status, 404)
      assert.strictEqual((yield* http("DELETE", `/api/v1/auth/users/${victim.id}`, { token: outsiderToken })).status, 404)
      assert.deepInclude((yield* users(root)).find((u) => u.id === victim.id), { role: "builder", status: "active" })
    }))

  it.effect("the first admin of the default workspace cannot demote themselves (the console's own row)", () =>
    Effect.gen(function*() {
      const root = yield* adminToken
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: root })
      const demote = yield* http("PATCH", `/api/v1/auth/users/${me.body.user.id}`, { token: root, body: { role: "user" } })
      assert.strictEqual(demote.status, 409)
      assert.strictEqual(demote.body.code, "LAST_ADMIN")
      assert.strictEqual((yield* http("GET", "/api/v1/auth/tenants", { token: root })).status, 200)
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { TestPlatformLive } from "../support/TestPlatform.js"

const base = "/api/v1/workflow/voice/trees"

layer(TestPlatformLive({ redis: false }), { excludeTestServices: true })("voice trees", (it) => {
  it.effect("revert activates in place, stamps newer versions superseded and moves the head", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const tree = yield* http("POST", base, { token, body: { name: "Main menu", content: { greeting: "v1" } } })
      assert.strictEqual(tree.status, 201)
      const id = tree.body.id as string
      const v2 = yield* http("POST", `${base}/${id}/versions`, { token, body: { content: { greeting: "v2" } } })
      const v3 = yield* http("POST", `${base}/${id}/versions`, { token, body: { content: { greeting: "v3" } } })
      assert.strictEqual(v3.body.number, 3)
      const listed = yield* http("GET", `${base}/${id}/versions`, { token })
      const v1 = listed.body.items.find((v: { number: number }) => v.number === 1)
      assert.deepStrictEqual(listed.body.items.map((v: { number: number }) => v.number), [3, 2, 1])

      const published = yield* http("POST", `${base}/${id}/publish`, { token, body: { version_id: v3.body.id } })
      assert.strictEqual(published.body.active_version_id, v3.body.id)
      assert.strictEqual(published.body.head_version_id, v3.body.id)

      const reverted = yield* http("POST", `${base}/${id}/versions/${v1.id}/revert`, { token })
      assert.strictEqual(reverted.status, 200)
      assert.strictEqual(reverted.body.active_version_id, v1.id)
      assert.strictEqual(reverted.body.head_version_id, v1.id)
      const afterFirst = yield* http("GET", `${base}/${id}/versions`, { token })
      const byNumber = (n: number) => afterFirst.body.items.find((v: { number: number }) => v.number === n)
      assert.isNull(byNumber(1).superseded_at)
      assert.isString(byNumber(2).superseded_at)
      assert.isString(byNumber(3).superseded_at)
      assert.strictEqual(afterFirst.body.items.length, 3)
      assert.isTrue(byNumber(1).active)

      // Back to a superseded version: its stamp is cleared, newer ones are stamped again.
      const firstStamp = byNumber(3).superseded_at as string
      yield* Effect.sleep("20 millis")
      const again = yield* http("POST", `${base}/${id}/versions/${v2.body.id}/revert`, { token })
      assert.strictEqual(again.body.head_version_id, v2.body.id)
      const v2now = yield* http("GET", `${base}/${id}/versions/${v2.body.id}`, { token })
      assert.isNull(v2now.body.superseded_at)
      assert.isTrue(v2now.body.active)
      const v3now = yield* http("GET", `${base}/${id}/versions/${v3.body.id}`, { token })
      assert.isString(v3now.body.superseded_at)
      assert.isAbove(Date.parse(v3now.body.superseded_at), Date.parse(firstStamp))
      const v1now = yield* http("GET", `${base}/${id}/versions/${v1.id}`, { token })
      assert.isNull(v1now.body.superseded_at)

      // Publishing an old version does not move the head.
      const old = yield* http("POST", `${base}/${id}/publish`, { token, body: { version_id: v1.id } })
      assert.strictEqual(old.body.active_version_id, v1.id)
      assert.strictEqual(old.body.head_version_id, v2.body.id)
    }))

  it.effect("unknown trees and versions are 404; writes need a builder role", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const tree = yield* http("POST", base, { token: admin, body: { name: "Other" } })
      assert.isNull(tree.body.head_version_id)
      assert.strictEqual((yield* http("GET", `${base}/00000000-0000-4000-8000-000000000000`, { token: admin })).status, 404)
      assert.strictEqual(
        (yield* http("POST", `${base}/${tree.body.id}/versions/00000000-0000-4000-8000-000000000000/revert`, { token: admin })).status,
        404
      )
      const u = yield* createMember(admin, "user")
      const token = yield* loginToken(u.email, u.password)
      assert.strictEqual((yield* http("GET", `${base}/${tree.body.id}`, { token })).status, 200)
      assert.strictEqual((yield* http("POST", `${base}/${tree.body.id}/versions`, { token, body: { content: {} } })).status, 403)
    }))
})

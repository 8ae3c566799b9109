import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type Role, Roles } from "../../schemas/Roles.js"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { json, makeWalker, operationsOf, PUBLIC, secretsIn, seedTenant } from "../support/MatrixWalk.js"
import { RunPlatformLive } from "../support/RunPlatform.js"

/**
 * The tenant matrix, generated from the OpenAPI document so that a new route is covered without
 * a line here (OWASP API1, broken object level authorization): tenant A is filled with one of
 * most resources, and the real ids of A's resources are found by walking the document's routes as
 * A's System Admin (a route's `{param}` takes the ids its parent listing answers). Then every
 * route that names a resource is called with A's ids by every role of tenant B, by JWT and by API
 * key: none may succeed (404, or a 403 that a role check answers before the lookup). A's
 * resources are all still there afterwards, and no answer anywhere carries a secret field.
 */
layer(RunPlatformLive({ TRUST_PROXY: "true" }), { excludeTestServices: true, timeout: "300 seconds" })("the tenant and role matrix", (it) => {
  it.effect("every route naming a resource, called with tenant A's ids by every role of tenant B (JWT and API key): never answered; A untouched; no secret in any answer", () =>
    Effect.gen(function*() {
      const env = yield* adminToken
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: env })
      const tenantA = me.body.user.tenant_id as string
      const a = yield* createMember(env, "system_admin", { tenantId: tenantA })
      const aToken = yield* loginToken(a.email, a.password)
      yield* seedTenant(aToken, tenantA)
      const tenantB = (yield* createTenant(env, `matrix-b-${Date.now().toString(36)}`)).id
      const attackers: Array<{ role: Role; headers: { token?: string; apiKey?: string } }> = []
      for (const role of Roles.filter((r) => r !== "env_admin")) {
        const m = yield* createMember(env, role, { tenantId: tenantB })
        const token = yield* loginToken(m.email, m.password)
        attackers.push({ role, headers: { token } })
        const key = yield* http("POST", "/api/v1/auth/api-keys", { token, body: { name: `${role} key` } })
        if (key.status === 201) attackers.push({ role, headers: { apiKey: key.body.key as string } })
      }

      const ops = operationsOf((yield* http("GET", "/api/v1/openapi.json")).body)
      const secrets: Array<string> = []
      const look = (path: string, text: string) => {
        for (const s of secretsIn(json(text))) secrets.push(`${path}${s}`)
      }

      const walker = makeWalker(aToken, look)
      const listedBefore = yield* walker.listAll(ops)
      walker.know([...listedBefore, tenantA, a.id])
      const concretes = walker.concretes

      const breaches: Array<string> = []
      let requests = 0
      let covered = 0
      for (const op of ops.filter((o) => o.path.includes("{") && !PUBLIC.some((p) => p.test(o.path)))) {
        const paths = yield* concretes(op.path)
        if (paths.length > 0) covered++
        for (const path of paths) {
          for (const attacker of attackers) {
            const r = yield* http(op.method, path, {
              ...attacker.headers,
              body: op.method === "GET" || op.method === "DELETE" ? undefined : {},
              headers: { "x-forwarded-for": `10.9.${requests % 250}.${(requests >> 8) % 250 + 1}` }
            })
            requests++
            look(path, r.text)
            if (r.status < 400 || r.status >= 500) {
              breaches.push(
                `${attacker.role}${attacker.headers.apiKey !== undefined ? " (key)" : ""} ${op.method} ${path} -> ${r.status} ${r.text.slice(0, 160)}`
              )
            }
          }
        }
      }
      assert.deepStrictEqual(breaches.slice(0, 20), [], `${breaches.length} of ${requests} cross-tenant requests were answered`)
      assert.isAbove(covered, 180, "the routes that name a resource were reached with real ids of A")

      // A's resources are all still listed.
      const after = yield* walker.listAll(ops)
      assert.deepStrictEqual([...listedBefore].filter((id) => !after.has(id)), [], "nothing of A's was removed")
      assert.deepStrictEqual(secrets, [], "no answer carries a secret field")
    }))
})

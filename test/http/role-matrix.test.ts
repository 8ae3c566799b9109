import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { allowedRoles } from "../../services/gateway/Routes.js"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { json, makeWalker, operationsOf, PUBLIC, secretsIn, seedTenant } from "../support/MatrixWalk.js"
import { RunPlatformLive } from "../support/RunPlatform.js"

/**
 * The role matrix inside one tenant, generated from the OpenAPI document (OWASP API5, broken
 * function level authorization) so that a new route is covered without a line here:
 * - `no_access` "can only read its own profile and tenants" (00-decisions section 2): every other
 *   route, called with the tenant's real ids, is refused: 403 for the role, or a 4xx that comes
 *   before the role check (a body that does not decode, a feature that is off), never 2xx or 5xx;
 * - every route that declares its roles (`AllowedRoles` in the API definition, read through the
 *   gateway's own reflection of it) answers 403 to each role it does not list when the body is
 *   over 64 KiB (refused before it is read), and refuses a small one too.
 * No answer carries a secret field.
 */
const OWN: ReadonlyArray<string> = [
  "GET /api/v1/auth/users/me",
  "GET /api/v1/auth/users/me/tenants",
  "POST /api/v1/auth/logout",
  "POST /api/v1/auth/switch-tenant",
  "POST /api/v1/auth/users/me/totp/enroll",
  "POST /api/v1/auth/users/me/totp/activate"
]
/** Routes the document opens to anyone with a credential or none (sign-in, refresh, health, the reference). */
const OPEN = /^\/(health|ready|api\/v1\/openapi\.json|docs)|^\/api\/v1\/auth\/(auth\/)?(login|refresh|begin|otp|sso|totp\/(verify|enroll))/

layer(RunPlatformLive({ TRUST_PROXY: "true" }), { excludeTestServices: true, timeout: "300 seconds" })("the role matrix", (it) => {
  it.effect("no_access answers nothing but its own profile and tenants; every route that declares its roles refuses the others with 403", () =>
    Effect.gen(function*() {
      const env = yield* adminToken
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: env })
      const tenant = me.body.user.tenant_id as string
      const admin = yield* createMember(env, "system_admin", { tenantId: tenant })
      const adminOfTenant = yield* loginToken(admin.email, admin.password)
      yield* seedTenant(adminOfTenant, tenant)
      const ops = operationsOf((yield* http("GET", "/api/v1/openapi.json")).body)
      const secrets: Array<string> = []
      const look = (path: string, text: string) => {
        for (const s of secretsIn(json(text))) secrets.push(`${path}${s}`)
      }
      const walker = makeWalker(adminOfTenant, look)
      walker.know([...(yield* walker.listAll(ops)), tenant, admin.id])
      const members = new Map<string, string>()
      for (const role of ["no_access", "user", "builder", "user_admin", "builder_admin"] as const) {
        const m = yield* createMember(env, role, { tenantId: tenant })
        members.set(role, yield* loginToken(m.email, m.password))
      }
      let requests = 0
      const call = (method: string, path: string, token: string, body: unknown = {}) =>
        Effect.tap(
          http(method, path, {
            token,
            body: method === "GET" || method === "DELETE" ? undefined : body,
            headers: { "x-forwarded-for": `10.8.${requests % 250}.${(requests >> 8) % 250 + 1}` }
          }),
          (r) => Effect.sync(() => (requests++, look(path, r.text)))
        )

      // no_access: refused everywhere but its own profile and tenants.
      const answered: Array<string> = []
      const statuses = new Map<number, number>()
      for (const op of ops.filter((o) => !PUBLIC.some((p) => p.test(o.path)) && !OPEN.test(o.path))) {
        const key = `${op.method} ${op.path}`
        for (const path of yield* walker.concretes(op.path)) {
          const r = yield* call(op.method, path, members.get("no_access")!)
          if (OWN.includes(key)) continue
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
          if (r.status < 400 || r.status >= 500) answered.push(`${key} (${path}) -> ${r.status} ${r.text.slice(0, 120)}`)
        }
      }
      assert.deepStrictEqual(answered.slice(0, 20), [], `${answered.length} routes answered no_access`)
      assert.isAbove(statuses.get(403) ?? 0, 200, `mostly an explicit 403: ${JSON.stringify([...statuses])}`)
      assert.strictEqual((yield* call("GET", "/api/v1/auth/users/me", members.get("no_access")!)).status, 200)

      // Declared roles: each role a route does not list gets 403, before a large body is read
      // (README "Security": over 64 KiB), and before a small one is acted on.
      const large = { pad: "x".repeat(70 * 1024) }
      const refusedWrongly: Array<string> = []
      let declared = 0
      for (const op of ops) {
        for (const path of yield* walker.concretes(op.path)) {
          const roles = allowedRoles(op.method, path)
          if (roles === undefined) continue
          declared++
          for (const [role, token] of members) {
            if (roles.includes(role as never)) continue
            const r = yield* call(op.method, path, token, large)
            if (r.status !== 403) refusedWrongly.push(`${role} ${op.method} ${path} -> ${r.status}`)
            const small = yield* call(op.method, path, token)
            if (small.status < 400 || small.status >= 500) refusedWrongly.push(`${role} ${op.method} ${path} (small body) -> ${small.status}`)
          }
        }
      }
      assert.isAbove(declared, 15, "the routes that declare their roles were reached")
      assert.deepStrictEqual(refusedWrongly, [])
      assert.deepStrictEqual(secrets, [], "no answer carries a secret field")
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { cookieHeader, cookieValue, setCookies } from "../support/Cookies.js"
import { http, login } from "../support/Http.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform, TestPlatformLive } from "../support/TestPlatform.js"

const FRONT_END = "https://app.example.test"

/** Signs in as a browser does and returns the cookies it was given. */
const browserLogin = login(ADMIN_EMAIL, ADMIN_PASSWORD).pipe(Effect.map((r) => setCookies(r.headers)))

const own = Effect.map(TestPlatform, (p) => p.baseUrl)

layer(TestPlatformLive({ redis: false, env: { CORS_ORIGINS: FRONT_END } }), { excludeTestServices: true })("browser sessions", (it) => {
  it.effect("login sets HttpOnly, SameSite=Lax cookies; the refresh cookie is scoped to the refresh path", () =>
    Effect.gen(function*() {
      const cookies = yield* browserLogin
      assert.match(cookies.access_token, /HttpOnly/)
      assert.match(cookies.access_token, /SameSite=Lax/)
      assert.match(cookies.access_token, /Path=\//)
      assert.match(cookies.refresh_token, /HttpOnly/)
      assert.match(cookies.refresh_token, /Path=\/api\/v1\/auth\/refresh/)
      assert.notMatch(cookies.csrf_token, /HttpOnly/, "the page reads the CSRF token")
      assert.notMatch(cookies.access_token, /Secure/, "plain http: no Secure flag")
    }))

  it.effect("with no credential header the access cookie is the Bearer credential", () =>
    Effect.gen(function*() {
      const cookies = yield* browserLogin
      const me = yield* http("GET", "/api/v1/auth/users/me", { headers: { cookie: cookieHeader(cookies, ["access_token"]) } })
      assert.strictEqual(me.status, 200)
      assert.strictEqual(me.body.user.email, ADMIN_EMAIL)
      // A credential header wins: a bad one is not rescued by the cookie.
      const header = yield* http("GET", "/api/v1/auth/users/me", {
        headers: { cookie: cookieHeader(cookies, ["access_token"]), authorization: "Bearer nope" }
      })
      assert.strictEqual(header.status, 401)
    }))

  it.effect("an unsafe method by cookie needs an allowed Origin and X-CSRF-Token equal to the csrf_token cookie", () =>
    Effect.gen(function*() {
      const cookies = yield* browserLogin
      const base = yield* own
      const cookie = cookieHeader(cookies, ["access_token", "csrf_token"])
      const csrf = cookieValue(cookies.csrf_token)!
      const create = (headers: Record<string, string>) =>
        http("POST", "/api/v1/workflow/workflows", { body: { name: "By cookie" }, headers: { cookie, ...headers } })
      const cases: ReadonlyArray<[Record<string, string>, number]> = [
        [{}, 403],
        [{ origin: base }, 403],
        [{ origin: base, "x-csrf-token": "wrong" }, 403],
        [{ origin: "https://evil.example", "x-csrf-token": csrf }, 403],
        [{ origin: base, "x-csrf-token": csrf }, 201],
        [{ origin: FRONT_END, "x-csrf-token": csrf }, 201],
        [{ referer: `${base}/app/page`, "x-csrf-token": csrf }, 201]
      ]
      for (const [headers, status] of cases) {
        const r = yield* create(headers)
        assert.strictEqual(r.status, status, `${JSON.stringify(headers)}: ${r.text}`)
        if (status === 403) assert.strictEqual(r.body.code, "CSRF_CHECK_FAILED")
      }
      // Reads by cookie need no token.
      assert.strictEqual((yield* http("GET", "/api/v1/workflow/workflows", { headers: { cookie } })).status, 200)
    }))

  it.effect("a cross-site POST carrying only the cookies is refused and writes nothing", () =>
    Effect.gen(function*() {
      const cookies = yield* browserLogin
      const cookie = cookieHeader(cookies, ["access_token", "refresh_token", "csrf_token"])
      const before = (yield* http("GET", "/api/v1/workflow/workflows?page_size=100", { headers: { cookie } })).body.total
      const attack = yield* http("POST", "/api/v1/workflow/workflows", {
        body: { name: "Forged" },
        headers: { cookie, origin: "https://evil.example" }
      })
      assert.strictEqual(attack.status, 403)
      const after = (yield* http("GET", "/api/v1/workflow/workflows?page_size=100", { headers: { cookie } })).body.total
      assert.strictEqual(after, before)
    }))

  it.effect("refresh reads the refresh cookie (with the CSRF checks) and sets a new access cookie", () =>
    Effect.gen(function*() {
      const cookies = yield* browserLogin
      const base = yield* own
      const cookie = cookieHeader(cookies, ["refresh_token", "csrf_token"])
      const forged = yield* http("POST", "/api/v1/auth/refresh", { body: {}, headers: { cookie, origin: "https://evil.example" } })
      assert.strictEqual(forged.status, 403)
      const ok = yield* http("POST", "/api/v1/auth/refresh", {
        body: {},
        headers: { cookie, origin: base, "x-csrf-token": cookieValue(cookies.csrf_token)! }
      })
      assert.strictEqual(ok.status, 200, ok.text)
      assert.strictEqual(cookieValue(setCookies(ok.headers).access_token), ok.body.access_token)
      assert.strictEqual((yield* http("POST", "/api/v1/auth/refresh", { body: {} })).status, 401, "neither body nor cookie")
    }))

  it.effect("logout clears the cookies", () =>
    Effect.gen(function*() {
      const r = yield* http("POST", "/api/v1/auth/logout")
      assert.strictEqual(r.status, 204)
      const cleared = setCookies(r.headers)
      for (const name of ["access_token", "refresh_token", "csrf_token"]) {
        assert.match(cleared[name], /Max-Age=0/, name)
        assert.strictEqual(cookieValue(cleared[name]), "")
      }
    }))

  it.effect("CORS: CORS_ORIGINS get credentialed answers and preflights; other origins get neither", () =>
    Effect.gen(function*() {
      const pre = yield* http("OPTIONS", "/api/v1/workflow/workflows", {
        headers: { origin: FRONT_END, "access-control-request-method": "POST", "access-control-request-headers": "content-type, x-csrf-token" }
      })
      assert.strictEqual(pre.status, 204)
      assert.strictEqual(pre.headers.get("access-control-allow-origin"), FRONT_END)
      assert.strictEqual(pre.headers.get("access-control-allow-credentials"), "true")
      assert.include(pre.headers.get("access-control-allow-methods") ?? "", "POST")
      const refused = yield* http("OPTIONS", "/api/v1/workflow/workflows", {
        headers: { origin: "https://evil.example", "access-control-request-method": "POST" }
      })
      assert.strictEqual(refused.status, 403)
      assert.isNull(refused.headers.get("access-control-allow-origin"))
      const cookies = yield* browserLogin
      const cookie = cookieHeader(cookies, ["access_token"])
      const allowed = yield* http("GET", "/api/v1/auth/users/me", { headers: { cookie, origin: FRONT_END } })
      assert.strictEqual(allowed.headers.get("access-control-allow-origin"), FRONT_END)
      assert.strictEqual(allowed.headers.get("access-control-allow-credentials"), "true")
      const other = yield* http("GET", "/api/v1/auth/users/me", { headers: { cookie, origin: "https://evil.example" } })
      assert.isNull(other.headers.get("access-control-allow-origin"))
    }))
})

layer(TestPlatformLive({ redis: false, env: { PUBLIC_BASE_URL: "https://builder.example.test" } }), { excludeTestServices: true })(
  "browser sessions behind https",
  (it) => {
    it.effect("cookies are Secure when PUBLIC_BASE_URL is https", () =>
      Effect.gen(function*() {
        const cookies = yield* browserLogin
        for (const name of ["access_token", "refresh_token", "csrf_token"]) assert.match(cookies[name], /Secure/, name)
      }))
  }
)

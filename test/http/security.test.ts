import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SignJWT } from "jose"
import * as http from "node:http"
import * as net from "node:net"
import { AUDIENCE, ISSUER } from "../../services/auth/Tokens.js"
import { adminToken, createMember, uniqueEmail } from "../support/Fixtures.js"
import { http as api } from "../support/Http.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform, TestPlatformLive } from "../support/TestPlatform.js"
import { createWorkflow } from "../support/Workflows.js"

/** A request whose TCP connection comes from `localAddress` (another loopback address is another client). */
const from = (localAddress: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.async<{ status: number; body: Record<string, unknown>; headers: http.IncomingHttpHeaders }>((resume) => {
      const url = new URL(platform.baseUrl + path)
      const text = body === undefined ? undefined : JSON.stringify(body)
      const req = http.request({
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress,
        headers: { ...(text !== undefined ? { "content-type": "application/json", "content-length": Buffer.byteLength(text) } : {}), ...headers }
      }, (res) => {
        let data = ""
        res.on("data", (d: Buffer) => (data += d.toString()))
        res.on("end", () =>
          resume(
            Effect.succeed({ status: res.statusCode ?? 0, body: data.length > 0 ? JSON.parse(data) as Record<string, unknown> : {}, headers: res.headers })
          ))
      })
      req.on("error", (e) => resume(Effect.die(e)))
      req.end(text)
    }))

const login = (localAddress: string, email: string, password: string) => from(localAddress, "POST", "/api/v1/auth/login", { email, password })

/** Raw JSON text, sent as it is. */
const raw = (method: string, path: string, text: string, token?: string) =>
  api(method, path, { rawBody: text, headers: { "content-type": "application/json" }, ...(token !== undefined ? { token } : {}) })

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

layer(TestPlatformLive({ redis: false }), { excludeTestServices: true, timeout: "120 seconds" })("security fixes", (it) => {
  it.effect("a NUL character anywhere in text is 400 with the documented body, never 500, before or after sign-in", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      const cases: ReadonlyArray<readonly [string, string, string, string | undefined]> = [
        ["POST", "/api/v1/auth/login", `{"email":"a\\u0000@b.co","password":"x"}`, undefined],
        ["POST", "/api/v1/workflow/workflows", `{"name":"bad\\u0000name"}`, token],
        ["PATCH", `/api/v1/workflow/workflows/${w.id}`, `{"description":"d\\u0000"}`, token],
        ["PATCH", `/api/v1/workflow/workflows/${w.id}`, `{"dag_definition":{"nodes":[{"id":"a\\u0000","type":"agent"}]}}`, token],
        ["POST", `/api/v1/workflow/workflows/${w.id}/run`, `{"input_params":{"k\\u0000":"v"}}`, token],
        ["POST", `/api/v1/workflow/workflows/${w.id}/run`, `{"input_params":{"k":"v\\u0000"}}`, token]
      ]
      for (const [method, path, body, t] of cases) {
        const r = yield* raw(method, path, body, t)
        assert.strictEqual(r.status, 400, `${path} ${body}: ${r.text}`)
        assert.strictEqual(r.body.code, "VALIDATION_ERROR")
        assert.isString(r.body.request_id)
      }
      const q = yield* api("GET", "/api/v1/workflow/workflows?q=a%00b", { token })
      assert.strictEqual(q.status, 400)
      // An escaped backslash before "u0000" is text, not a NUL.
      const literal = yield* raw("POST", "/api/v1/workflow/workflows", `{"name":"path C:\\\\u0000"}`, token)
      assert.strictEqual(literal.status, 201, literal.text)
    }))

  it.effect("JSON nested thousands deep is 400 before decoding, on /login too", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      for (const [path, t] of [["/api/v1/auth/login", undefined], ["/api/v1/workflow/workflows", token]] as const) {
        const r = yield* raw("POST", path, `{"email":${nested(3000)}}`, t)
        assert.strictEqual(r.status, 400, r.text)
        assert.strictEqual(r.body.code, "INVALID_BODY")
      }
      // Ordinary nesting is fine.
      assert.strictEqual((yield* raw("POST", "/api/v1/workflow/workflows", `{"name":"ok","description":"x","icon":"i"}`, token)).status, 201)
    }))

  it.effect("errors echo at most a bounded part of a value: a 9 MiB field gives a small 400", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const huge = "x".repeat(9 * 1024 * 1024)
      const r = yield* api("POST", "/api/v1/workflow/workflows", { token, body: { name: "n", icon: huge } })
      assert.strictEqual(r.status, 400)
      assert.isBelow(r.text.length, 8 * 1024, "the answer stays small")
      assert.include(r.text, "more characters")
    }))

  it.effect("a role that may not write gets 403 before a large body is decoded", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const user = yield* createMember(token, "user")
      const userToken = (yield* login("127.0.0.1", user.email, user.password)).body.access_token as string
      const big = { name: "n", description: "y".repeat(200 * 1024), icon: 7 }
      const r = yield* api("POST", "/api/v1/workflow/workflows", { token: userToken, body: big })
      assert.strictEqual(r.status, 403, r.text)
      assert.isBelow(r.text.length, 1024)
    }))

  it.effect("an attacker elsewhere cannot lock the owner out; the attacker gets 429 with Retry-After", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 5; i++) assert.strictEqual((yield* login("127.0.0.2", ADMIN_EMAIL, "wrong-guess")).status, 401)
      const blocked = yield* login("127.0.0.2", ADMIN_EMAIL, "wrong-guess")
      assert.strictEqual(blocked.status, 429)
      assert.isDefined(blocked.headers["retry-after"])
      assert.strictEqual((yield* login("127.0.0.2", ADMIN_EMAIL, ADMIN_PASSWORD)).status, 429, "that client stays throttled")
      // The owner, from their own address, signs in (after the progressive delay).
      const owner = yield* login("127.0.0.1", ADMIN_EMAIL, ADMIN_PASSWORD)
      assert.strictEqual(owner.status, 200)
    }))

  it.effect("one client address has a hard limit across accounts", () =>
    Effect.gen(function*() {
      let last = 0
      for (let i = 0; i < 51 && last !== 429; i++) last = (yield* login("127.0.0.3", uniqueEmail("spray"), "nope")).status
      assert.strictEqual(last, 429)
      const other = yield* login("127.0.0.3", ADMIN_EMAIL, ADMIN_PASSWORD)
      assert.strictEqual(other.status, 429, "the client is throttled whatever the account")
      assert.strictEqual((yield* login("127.0.0.4", ADMIN_EMAIL, ADMIN_PASSWORD)).status, 200)
    }))

  it.effect("/auth/begin answers an unknown address like a password account", () =>
    Effect.gen(function*() {
      const unknown = yield* api("POST", "/api/v1/auth/auth/begin", { body: { email: uniqueEmail("ghost") } })
      const known = yield* api("POST", "/api/v1/auth/auth/begin", { body: { email: ADMIN_EMAIL } })
      assert.deepStrictEqual(unknown.body, { method: "password" })
      assert.deepStrictEqual(known.body, unknown.body)
    }))

  it.effect("a token signed with the platform's key but without exp is refused", () =>
    Effect.gen(function*() {
      const platform = yield* TestPlatform
      const me = yield* api("GET", "/api/v1/auth/users/me", { token: yield* adminToken })
      const key = new TextEncoder().encode(platform.env.JWT_SECRET)
      const forge = (exp: boolean) =>
        Effect.promise(() => {
          let jwt = new SignJWT({ tid: me.body.user.tenant_id, typ: "access" }).setProtectedHeader({ alg: "HS256" })
            .setSubject(me.body.user.id).setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt()
          if (exp) jwt = jwt.setExpirationTime("5m")
          return jwt.sign(key)
        })
      assert.strictEqual((yield* api("GET", "/api/v1/auth/users/me", { token: yield* forge(true) })).status, 200)
      assert.strictEqual((yield* api("GET", "/api/v1/auth/users/me", { token: yield* forge(false) })).status, 401)
    }))

  it.effect("internal RPC is not served on the public port", () =>
    Effect.gen(function*() {
      const r = yield* api("POST", "/internal/rpc/auth", { rawBody: "{}" })
      assert.strictEqual(r.status, 404)
    }))
})

layer(TestPlatformLive({ redis: false, env: { HEADERS_TIMEOUT_SECONDS: "2", REQUEST_TIMEOUT_SECONDS: "3" } }), { excludeTestServices: true })(
  "slow clients",
  (it) => {
    it.effect("a client that never finishes its headers is cut off", () =>
      Effect.gen(function*() {
        const platform = yield* TestPlatform
        const port = Number(new URL(platform.baseUrl).port)
        const started = Date.now()
        const closedAfter = yield* Effect.async<number>((resume) => {
          const socket = net.connect(port, "127.0.0.1", () => socket.write("GET /health HTTP/1.1\r\nHost: x\r\n"))
          const trickle = setInterval(() => socket.write("X-Slow: 1\r\n"), 500)
          socket.on("data", () => undefined)
          socket.on("close", () => {
            clearInterval(trickle)
            resume(Effect.succeed(Date.now() - started))
          })
          socket.on("error", () => undefined)
        }).pipe(Effect.timeout("15 seconds"))
        assert.isAtMost(closedAfter, 5000, "closed within the headers timeout and a check interval")
        assert.isAtLeast(closedAfter, 1500)
      }))
  }
)

import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as nodeHttp from "node:http"
import { ErrorCatalogue, ErrorCodes } from "../../schemas/ErrorCodes.js"
import { http } from "../support/Http.js"
import { TestPlatform, TestPlatformLive } from "../support/TestPlatform.js"

layer(TestPlatformLive({ redis: false }), { excludeTestServices: true })("gateway", (it) => {
  it.effect("health answers ok once migrations ran", () =>
    Effect.gen(function*() {
      const r = yield* http("GET", "/health")
      assert.strictEqual(r.status, 200)
      assert.deepStrictEqual(r.body, { status: "ok" })
      const ready = yield* http("GET", "/ready")
      assert.strictEqual(ready.status, 200, ready.text)
      assert.deepStrictEqual(ready.body, { status: "ready", role: "all", checks: { database: "ok", migrations: "ok" } })
    }))

  it.effect("every response carries X-Request-Id, taken from the request when given", () =>
    Effect.gen(function*() {
      const generated = yield* http("GET", "/health")
      assert.match(generated.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/)
      const echoed = yield* http("GET", "/nope", { headers: { "x-request-id": "trace-abc.123" } })
      assert.strictEqual(echoed.headers.get("x-request-id"), "trace-abc.123")
      assert.strictEqual(echoed.body.request_id, "trace-abc.123")
    }))

  describe("errors are the flat body", () => {
    it.effect("unknown route is 404", () =>
      Effect.gen(function*() {
        const r = yield* http("GET", "/api/v1/nothing-here")
        assert.strictEqual(r.status, 404)
        assert.deepStrictEqual(Object.keys(r.body).sort(), ["code", "message", "request_id"])
        assert.strictEqual(r.body.code, "NOT_FOUND")
      }))

    it.effect("wrong method is 405 with Allow", () =>
      Effect.gen(function*() {
        const r = yield* http("PUT", "/api/v1/auth/login", { body: {} })
        assert.strictEqual(r.status, 405)
        assert.strictEqual(r.body.code, "METHOD_NOT_ALLOWED")
        assert.strictEqual(r.headers.get("allow"), "POST")
      }))

    it.effect("malformed JSON is 400", () =>
      Effect.gen(function*() {
        const r = yield* http("POST", "/api/v1/auth/login", {
          rawBody: "{\"email\": ",
          headers: { "content-type": "application/json" }
        })
        assert.strictEqual(r.status, 400)
        assert.strictEqual(r.body.code, "INVALID_BODY")
        assert.isString(r.body.request_id)
      }))

    it.effect("a missing field or wrong type is 400 VALIDATION_ERROR with details", () =>
      Effect.gen(function*() {
        const r = yield* http("POST", "/api/v1/auth/login", { body: { email: "a@b.co", password: 5 } })
        assert.strictEqual(r.status, 400)
        assert.strictEqual(r.body.code, "VALIDATION_ERROR")
        assert.isUndefined(r.body._tag)
        assert.deepStrictEqual(r.body.details[0].path, ["password"])
        const missing = yield* http("POST", "/api/v1/auth/login", { body: { email: "a@b.co" } })
        assert.strictEqual(missing.status, 400)
      }))

    it.effect("unknown JSON fields are ignored", () =>
      Effect.gen(function*() {
        const r = yield* http("POST", "/api/v1/auth/login", {
          body: { email: "nobody@x.test", password: "whatever", extra: { deep: true } }
        })
        assert.strictEqual(r.status, 401)
      }))

    it.effect("a bad UUID in the path is a clear 4xx, never a 500", () =>
      Effect.gen(function*() {
        const r = yield* http("DELETE", "/api/v1/auth/api-keys/not-a-uuid", { apiKey: "x" })
        assert.isTrue(r.status === 400 || r.status === 401 || r.status === 404)
        assert.isString(r.body.code)
      }))

    it.effect("a body over the limit is 413", () =>
      Effect.gen(function*() {
        const big = "x".repeat(11 * 1024 * 1024)
        const r = yield* http("POST", "/api/v1/auth/login", {
          rawBody: JSON.stringify({ email: "a@b.co", password: big }),
          headers: { "content-type": "application/json" }
        })
        assert.strictEqual(r.status, 413)
        assert.strictEqual(r.body.code, "PAYLOAD_TOO_LARGE")
        // Without Content-Length (chunked) reading stops at the limit: a 413 when the answer gets
        // out first, else the connection is cut; never a parsed body.
        const platform = yield* TestPlatform
        const chunked = yield* Effect.async<number | "reset">((resume) => {
          const url = new URL(platform.baseUrl)
          const req = nodeHttp.request({
            host: url.hostname,
            port: url.port,
            method: "POST",
            path: "/api/v1/auth/login",
            headers: { "content-type": "application/json", "transfer-encoding": "chunked" }
          })
          req.on("response", (res) => {
            res.resume()
            resume(Effect.succeed(res.statusCode ?? 0))
          })
          req.on("error", () => resume(Effect.succeed("reset" as const)))
          const chunk = "x".repeat(1024 * 1024)
          for (let i = 0; i < 11; i++) req.write(chunk)
          req.end()
        })
        assert.include([413, "reset"], chunked)
        const after = yield* http("GET", "/health")
        assert.strictEqual(after.status, 200)
      }))

    it.effect("no credential is 401", () =>
      Effect.gen(function*() {
        const r = yield* http("GET", "/api/v1/auth/users/me")
        assert.strictEqual(r.status, 401)
        assert.strictEqual(r.body.code, "UNAUTHORIZED")
      }))
  })

  it.effect("serves the OpenAPI document generated from schemas/ and the docs page", () =>
    Effect.gen(function*() {
      const spec = yield* http("GET", "/api/v1/openapi.json")
      assert.strictEqual(spec.status, 200)
      assert.strictEqual(spec.body.openapi, "3.1.0")
      assert.property(spec.body.paths, "/api/v1/auth/login")
      assert.property(spec.body.paths, "/api/v1/auth/auth/otp/verify")
      const schemas = spec.body.components.schemas as Record<string, { properties?: Record<string, unknown> }>
      const unauthorized = Object.values(schemas).find((s) => s.properties?.code !== undefined && s.properties?.request_id !== undefined)
      assert.isDefined(unauthorized)
      assert.isUndefined(unauthorized?.properties?._tag)
      // The error catalogue: every code in the description with its status, and as the enum of `code`.
      const description = String(spec.body.info.description)
      for (const code of ErrorCodes) assert.include(description, `| \`${code}\` | ${ErrorCatalogue[code][0]} |`)
      const enums = JSON.stringify(spec.body.components.schemas)
      assert.include(enums, JSON.stringify(ErrorCodes.slice(0, 3)).slice(1, -1))
      const docs = yield* http("GET", "/docs")
      assert.strictEqual(docs.status, 200)
      assert.include(docs.headers.get("content-type") ?? "", "text/html")
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request as rawRequest } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { shellSize } from "../../scripts/build-console.mjs"
import { CONSOLE_POLICY } from "../../services/gateway/Console.js"
import { TestPlatform, TestPlatformLive } from "../support/TestPlatform.js"

// Issue 33: the gateway serves the console: its page for browser navigations, its hashed files
// compressed and cached for good, a strict Content-Security-Policy; the API keeps its own answers.

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: Buffer
}

const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  Effect.flatMap(TestPlatform, ({ baseUrl }) =>
    Effect.async<Raw>((resume) => {
      const req = rawRequest(`${baseUrl}${path}`, { method, headers }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) })))
      })
      req.end()
    }))

const navigation = { accept: "text/html,application/xhtml+xml,application/xhtml+xml;q=0.9,*/*;q=0.8" }

layer(TestPlatformLive(), { excludeTestServices: true })("the console, served by the gateway", (it) => {
  it.effect("the page at / and at every client route a browser navigates to, never cached stale, under a strict policy", () =>
    Effect.gen(function*() {
      for (const path of ["/", "/runs", "/runs/5b7c7d2e-3f1a-4c55-9a51-5e0d1f5a8c11?tab=trace", "/sign-in?next=%2Finbox"]) {
        const page = yield* get(path, navigation)
        assert.strictEqual(page.status, 200, path)
        assert.match(String(page.headers["content-type"]), /^text\/html/)
        assert.include(page.body.toString("utf8"), "<div id=\"root\"></div>")
        assert.strictEqual(page.headers["cache-control"], "no-cache")
        assert.strictEqual(page.headers["content-security-policy"], CONSOLE_POLICY)
        assert.strictEqual(page.headers["x-frame-options"], "DENY")
        assert.strictEqual(page.headers["x-content-type-options"], "nosniff")
      }
      assert.notInclude(CONSOLE_POLICY, "unsafe-inline")
      assert.notInclude(CONSOLE_POLICY, "unsafe-eval")
      const head = yield* get("/", navigation, "HEAD")
      assert.strictEqual(head.status, 200)
      assert.strictEqual(head.body.byteLength, 0)
    }))

  it.effect("hashed files: compressed as asked, cached for a year; their bytes the build's", () =>
    Effect.gen(function*() {
      const html = (yield* get("/", navigation)).body.toString("utf8")
      const scripts = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1])
      assert.isAtLeast(scripts.length, 1)
      const plain = yield* get(scripts[0])
      assert.strictEqual(plain.status, 200)
      assert.match(String(plain.headers["content-type"]), /^text\/javascript/)
      assert.strictEqual(plain.headers["cache-control"], "public, max-age=31536000, immutable")
      assert.isUndefined(plain.headers["content-encoding"])
      const br = yield* get(scripts[0], { "accept-encoding": "gzip, deflate, br" })
      assert.strictEqual(br.headers["content-encoding"], "br")
      assert.strictEqual(br.headers.vary, "Accept-Encoding")
      assert.isTrue(brotliDecompressSync(br.body).equals(plain.body))
      const gz = yield* get(scripts[0], { "accept-encoding": "gzip" })
      assert.strictEqual(gz.headers["content-encoding"], "gzip")
      assert.isTrue(gunzipSync(gz.body).equals(plain.body))
      assert.isBelow(br.body.byteLength, plain.body.byteLength / 2)
      // The shell: what the page loads before anything else, under 300 KB compressed.
      assert.isBelow(shellSize(), 300 * 1024)
    }))

  it.effect("the API, its reference and unknown files keep their own answers", () =>
    Effect.gen(function*() {
      const api = yield* get("/api/v1/no-such-thing", navigation)
      assert.strictEqual(api.status, 404)
      assert.strictEqual(JSON.parse(api.body.toString("utf8")).code, "NOT_FOUND")
      const asset = yield* get("/assets/missing-abc123.js", navigation)
      assert.strictEqual(asset.status, 404)
      // A client that does not ask for HTML (curl, a script) gets the API's 404 for an unknown path.
      const script = yield* get("/runs", { accept: "application/json" })
      assert.strictEqual(script.status, 404)
      assert.strictEqual(JSON.parse(script.body.toString("utf8")).code, "NOT_FOUND")
      const post = yield* get("/runs", navigation, "POST")
      assert.notStrictEqual(post.status, 200)
      const health = yield* get("/health", navigation)
      assert.match(String(health.headers["content-type"]), /json/)
    }))
})

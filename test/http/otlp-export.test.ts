import { createServer, type Server } from "node:http"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { freePort } from "../../services/shared/FreePort.js"
import { login } from "../support/Http.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatformLive } from "../support/TestPlatform.js"

/** An OTLP/HTTP receiver on loopback that keeps the bodies posted to /v1/traces. */
class OtlpReceiver extends Context.Tag("OtlpReceiver")<OtlpReceiver, { readonly url: string; readonly bodies: Array<string> }>() {
  static readonly layer = Layer.scoped(
    OtlpReceiver,
    Effect.gen(function*() {
      const port = yield* freePort
      const bodies: Array<string> = []
      const server: Server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          if (req.url === "/v1/traces") bodies.push(Buffer.concat(chunks).toString("utf8"))
          res.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(port, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      return { url: `http://127.0.0.1:${port}`, bodies }
    })
  )
}

const Live = Layer.unwrapEffect(
  Effect.map(OtlpReceiver, (r) => TestPlatformLive({ redis: false, env: { OTEL_EXPORTER_OTLP_ENDPOINT: r.url } }))
).pipe(Layer.provideMerge(OtlpReceiver.layer))

layer(Live, { excludeTestServices: true })("OTLP export", (it) => {
  it.effect("with OTEL_EXPORTER_OTLP_ENDPOINT set, service spans arrive at the collector", () =>
    Effect.gen(function*() {
      const r = yield* login(ADMIN_EMAIL, ADMIN_PASSWORD)
      assert.strictEqual(r.status, 200)
      const receiver = yield* OtlpReceiver
      for (let i = 0; i < 100 && !receiver.bodies.some((b) => b.includes("Sessions.login")); i++) {
        yield* Effect.sleep("100 millis")
      }
      const body = receiver.bodies.find((b) => b.includes("Sessions.login"))
      assert.isDefined(body)
      assert.include(body, "builder-platform")
    }))
})

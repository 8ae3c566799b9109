import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { freePort } from "../../platform/FreePort.js"
import { request } from "../support/Http.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, servePlatform, TestPlatform, TestPlatformLive } from "../support/TestPlatform.js"

/** A second process-like instance whose gateway asks the first one's auth service over HTTP RPC. */
class SplitGateway extends Context.Tag("SplitGateway")<SplitGateway, { readonly baseUrl: string; readonly rpcUrl: string }>() {}

const SplitGatewayLive = Layer.scoped(
  SplitGateway,
  Effect.gen(function*() {
    const auth = yield* TestPlatform
    const port = yield* freePort
    const rpcUrl = `http://127.0.0.1:${auth.env.INTERNAL_RPC_PORT}/internal/rpc/auth`
    yield* servePlatform({
      ...auth.env,
      PORT: String(port),
      // A different signing key: a token issued by the auth instance verifies here only through RPC.
      JWT_SECRET: randomBytes(32).toString("hex"),
      ROLE: "gateway",
      AUTH_RPC_URL: rpcUrl,
      INTERNAL_RPC_TOKEN: "shared-internal-token"
    })
    return { baseUrl: `http://127.0.0.1:${port}`, rpcUrl }
  })
)

/** The services process: internal RPC on a port of its own, with the shared token. */
const ServicesLive = Layer.unwrapEffect(
  Effect.map(
    freePort,
    (rpcPort) => TestPlatformLive({ redis: false, env: { ROLE: "services", INTERNAL_RPC_TOKEN: "shared-internal-token", INTERNAL_RPC_PORT: String(rpcPort) } })
  )
)

const Live = SplitGatewayLive.pipe(Layer.provideMerge(ServicesLive))

layer(Live, { excludeTestServices: true })("RPC between services", (it) => {
  it.effect("with AUTH_RPC_URL the gateway verifies credentials by calling auth over HTTP", () =>
    Effect.gen(function*() {
      const auth = yield* TestPlatform
      const gateway = yield* SplitGateway
      const login = yield* request(auth.baseUrl, "POST", "/api/v1/auth/login", {
        body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }
      })
      assert.strictEqual(login.status, 200)
      const me = yield* request(gateway.baseUrl, "GET", "/api/v1/auth/users/me", { token: login.body.access_token })
      assert.strictEqual(me.status, 200)
      assert.strictEqual(me.body.user.email, ADMIN_EMAIL)
      // Tokens this gateway would sign with its own key mean nothing to the auth service.
      const local = yield* request(gateway.baseUrl, "POST", "/api/v1/auth/login", {
        body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }
      })
      const refused = yield* request(gateway.baseUrl, "GET", "/api/v1/auth/users/me", { token: local.body.access_token })
      assert.strictEqual(refused.status, 401)
      assert.strictEqual(refused.body.code, "INVALID_TOKEN")
      const none = yield* request(gateway.baseUrl, "GET", "/api/v1/auth/users/me")
      assert.strictEqual(none.status, 401)
      // The internal listener refuses callers without the shared internal token; the public port has no such route.
      const rpcBase = gateway.rpcUrl.replace("/internal/rpc/auth", "")
      const outsider = yield* request(rpcBase, "POST", "/internal/rpc/auth", { rawBody: "{}" })
      assert.strictEqual(outsider.status, 401)
      const wrong = yield* request(rpcBase, "POST", "/internal/rpc/auth", { rawBody: "{}", headers: { "x-internal-token": "guess" } })
      assert.strictEqual(wrong.status, 401)
      const publicMount = yield* request(auth.baseUrl, "POST", "/internal/rpc/auth", {
        rawBody: "{}",
        headers: { "x-internal-token": "shared-internal-token" }
      })
      assert.strictEqual(publicMount.status, 404)
    }))

  it.effect("API keys and scope refusals travel over RPC with their status", () =>
    Effect.gen(function*() {
      const auth = yield* TestPlatform
      const gateway = yield* SplitGateway
      const login = yield* request(auth.baseUrl, "POST", "/api/v1/auth/login", {
        body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }
      })
      const key = yield* request(auth.baseUrl, "POST", "/api/v1/auth/api-keys", {
        token: login.body.access_token,
        body: { name: "reader", operation_scope: ["read"] }
      })
      const read = yield* request(gateway.baseUrl, "GET", "/api/v1/auth/users", { apiKey: key.body.key })
      assert.strictEqual(read.status, 200)
      const write = yield* request(gateway.baseUrl, "POST", "/api/v1/auth/groups", { apiKey: key.body.key, body: { name: "x" } })
      assert.strictEqual(write.status, 403)
    }))
})

/**
 * The stack's own floor for the load benchmark: a minimal `@effect/platform` HttpApi server (one
 * group, `GET /health` doing SELECT 1 on a `pg` pool of 20, the same query as bench/BareServer.ts)
 * with no code of the platform's. What the platform's `/health` costs above it is ours; what it
 * costs above the bare `node:http` server is the framework's.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"
import pg from "pg"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 })

const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("system").add(HttpApiEndpoint.get("health", "/health").addSuccess(Schema.Struct({ status: Schema.Literal("ok") })))
)

const health = Effect.async<{ readonly status: "ok" }>((resume) => void pool.query("SELECT 1", () => resume(Effect.succeed({ status: "ok" as const }))))

const ServerLive = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(HttpApiBuilder.group(Api, "system", (h) => h.handle("health", () => health))))),
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.env.PORT), host: "127.0.0.1" }))
)

NodeRuntime.runMain(Layer.launch(ServerLive))

import { ConfigProvider, Context, Effect, Layer, Logger, LogLevel } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import pg from "pg"
import { freePort } from "../../platform/FreePort.js"
import { ExtraNodeTypes, type NodeDefinition } from "../../runtime/nodes/NodeType.js"
import { PlatformLive } from "../../services/gateway/Platform.js"
import { migratedDatabase } from "./TestDatabase.js"
import { redisAvailable, testRedisUrl } from "./TestServices.js"

export const ADMIN_EMAIL = "admin@acme.test"
export const ADMIN_PASSWORD = "correct horse battery"

export interface TestPlatformShape {
  readonly baseUrl: string
  readonly databaseUrl: string
  readonly env: Readonly<Record<string, string>>
}

export class TestPlatform extends Context.Tag("TestPlatform")<TestPlatform, TestPlatformShape>() {}

/**
 * Builds and serves the platform with this environment, inside the current scope; `nodes` are
 * node types of the test's own, added to the built-in ones.
 */
export const servePlatform = (env: Record<string, string>, nodes: ReadonlyArray<NodeDefinition<never>> = []) =>
  Layer.build(
    PlatformLive.pipe(
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))),
      Layer.provide(Layer.succeed(ExtraNodeTypes, nodes))
    )
  ).pipe(Logger.withMinimumLogLevel(LogLevel.Error))

/**
 * The real server on a fresh database of its own, on a free loopback port. `REDIS_URL` is set
 * (with a key prefix of the suite's own) unless `redis: false` or no Redis answers.
 */
export const TestPlatformLive = (
  options: { readonly redis?: boolean; readonly env?: Record<string, string>; readonly nodes?: ReadonlyArray<NodeDefinition<never>> } = {}
) =>
  Layer.scoped(
    TestPlatform,
    Effect.gen(function*() {
      const db = yield* migratedDatabase
      const port = options.env?.PORT ?? String(yield* freePort)
      // Removed after the platform stops (scopes close in reverse order).
      const dataDir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(path.join(tmpdir(), "bp-test-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const env: Record<string, string> = {
        DATABASE_URL: db.url,
        PORT: port,
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        JWT_SECRET: randomBytes(32).toString("hex"),
        CREDENTIALS_KEY: randomBytes(32).toString("base64"),
        BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
        BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
        BOOTSTRAP_TENANT: "acme",
        SHUTDOWN_GRACE_SECONDS: "1",
        // Dozens of platforms start in a run of the suite; each would load every task module.
        WORKER_WARM_THREADS: "0",
        // Hundreds of sign-ins and new users in a run of the suite, each a third of a second of CPU at the default cost.
        PASSWORD_HASH_COST: "10",
        // Two cores running the suite keep every loop late: fair shares under overload have their own test (start-shares).
        OVERLOAD_LOOP_LAG_MS: "0",
        ...(options.redis === false || !redisAvailable ? {} : { REDIS_URL: testRedisUrl, REDIS_KEY_PREFIX: `bptest:${db.name}:` }),
        ...options.env
      }
      yield* servePlatform(env, options.nodes)
      return { baseUrl: `http://127.0.0.1:${port}`, databaseUrl: db.url, env }
    })
  )

/** `f` with a client on the test platform's own database (closed afterwards). */
export const withPlatformDb = <A>(f: (client: pg.Client) => Promise<A>) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: platform.databaseUrl })
      await client.connect()
      return f(client).finally(() => client.end())
    }))

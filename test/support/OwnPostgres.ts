import { Duration, Effect } from "effect"
import type { ChildProcess } from "node:child_process"
import { chmodSync, mkdtempSync } from "node:fs"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { postgresBinaries } from "../../platform/embedded/Binaries.js"
import { clusterDirectory } from "../../platform/embedded/DataDirectory.js"
import { initdb, startPostmaster, stopPostmaster } from "../../platform/embedded/Postmaster.js"
import { postgresAccount } from "../../platform/embedded/SystemAccount.js"
import { freePort } from "../../platform/FreePort.js"

/**
 * A PostgreSQL server of the test's own (the embedded binaries, as root run as `postgres`), that
 * the test may restart the way `pg_ctl restart -m immediate` does (SIGQUIT to the postmaster: no
 * checkpoint, every backend gone, crash recovery at the next start) or keep down for a while;
 * stopped with the scope. The suite's shared PostgreSQL is never touched.
 */
export const ownPostgres = Effect.gen(function*() {
  const dataDir = mkdtempSync(path.join(tmpdir(), "bp-own-pg-"))
  // Reachable by `postgres` when we run as root, so that the cluster lives here and goes with it.
  chmodSync(dataDir, 0o755)
  const account = yield* postgresAccount
  const binaries = yield* postgresBinaries(account)
  const cluster = yield* clusterDirectory(dataDir, account)
  // Runs after the postmaster's stop below (finalizers run last added, first).
  yield* Effect.addFinalizer(() =>
    Effect.promise(() => Promise.all([dataDir, path.dirname(cluster.pgdata)].map((dir) => rm(dir, { recursive: true, force: true }).catch(() => undefined))))
  )
  const port = yield* freePort
  const options = { binaries, account, cluster, port, logFile: path.join(dataDir, "postgres.log"), startTimeout: Duration.seconds(60) }
  yield* initdb(options)
  let postmaster: ChildProcess = yield* startPostmaster(options)
  yield* Effect.addFinalizer(() => stopPostmaster(postmaster))
  /** SIGQUIT, as `pg_ctl stop -m immediate` sends; resolves when the postmaster is gone. */
  const stopImmediate = Effect.async<void>((resume) => {
    if (postmaster.exitCode !== null || postmaster.signalCode !== null) return resume(Effect.void)
    postmaster.once("exit", () => resume(Effect.void))
    postmaster.kill("SIGQUIT")
  })
  const start = Effect.map(Effect.orDie(startPostmaster(options)), (child) => void (postmaster = child))
  return {
    url: `postgres://postgres:${encodeURIComponent(cluster.password)}@127.0.0.1:${port}/postgres`,
    stopImmediate,
    start,
    /** `pg_ctl restart -m immediate`. */
    restartImmediate: Effect.zipRight(stopImmediate, start)
  }
})

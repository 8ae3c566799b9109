import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { StartupError } from "../StartupError.js"
import { errorCode, SHARED_ROOT } from "./Binaries.js"
import { canReach, type SystemAccount } from "./SystemAccount.js"

export interface ClusterDirectory {
  /** PostgreSQL's data directory. */
  readonly pgdata: string
  readonly password: string
  readonly initialised: boolean
}

const exists = (file: string) => Effect.promise(() => fs.access(file).then(() => true, () => false))
const readText = (file: string) => Effect.promise(() => fs.readFile(file, "utf8").then((t) => t.trim(), () => undefined))

const cannotWrite = (dir: string, cause: unknown) =>
  new StartupError({
    message: `DATA_DIR ${dir} cannot be written (${errorCode(cause)}): set DATA_DIR to a directory this user can write, or set DATABASE_URL.`
  })

/**
 * Where the cluster lives. Normally `DATA_DIR/pg`. As root, PostgreSQL runs as `postgres`, which
 * cannot enter a DATA_DIR whose parents are private (a clone under root's 0700 home): the cluster
 * then lives under /var/lib/builder-platform, and `DATA_DIR/pg-location` records where, so every
 * later start finds the same data.
 */
export const clusterDirectory = (dataDir: string, account: SystemAccount) =>
  Effect.gen(function*() {
    const root = path.resolve(dataDir)
    yield* Effect.tryPromise({ try: () => fs.mkdir(root, { recursive: true }), catch: (e) => cannotWrite(root, e) })
    const pointer = path.join(root, "pg-location")
    const recorded = yield* readText(pointer)
    const local = path.join(root, "pg")
    const pgdata = recorded !== undefined
      ? recorded
      : !account.switched || (yield* exists(path.join(local, "PG_VERSION"))) || (yield* canReach(root, account, 1))
      ? local
      : path.join(SHARED_ROOT, "data", randomBytes(8).toString("hex"), "pg")
    if (pgdata !== local && recorded === undefined) {
      yield* Effect.log(
        `DATA_DIR ${root} is not reachable by the system user '${account.name}' that runs PostgreSQL: ` +
          `its data goes to ${pgdata} (recorded in ${pointer})`
      )
      yield* Effect.tryPromise({ try: () => fs.writeFile(pointer, `${pgdata}\n`, { mode: 0o600 }), catch: (e) => cannotWrite(root, e) })
    }
    const initialised = yield* exists(path.join(pgdata, "PG_VERSION"))
    yield* Effect.tryPromise({
      try: async () => {
        await fs.mkdir(path.dirname(pgdata), { recursive: true, mode: 0o755 })
        await fs.mkdir(pgdata, { recursive: true, mode: 0o700 })
        if (account.switched) await fs.chown(pgdata, account.uid, account.gid)
        await fs.chmod(pgdata, 0o700)
      },
      catch: (e) => cannotWrite(path.dirname(pgdata), e)
    })
    const password = yield* clusterPassword(root, initialised)
    return { pgdata, password, initialised } satisfies ClusterDirectory
  })

/** A random password kept in DATA_DIR (0600); clusters made before it existed used "postgres". */
const clusterPassword = (root: string, initialised: boolean) =>
  Effect.gen(function*() {
    const file = path.join(root, "embedded-postgres-password")
    const stored = yield* readText(file)
    if (stored !== undefined) return stored
    if (initialised) return "postgres"
    const password = randomBytes(18).toString("base64url")
    yield* Effect.tryPromise({ try: () => fs.writeFile(file, password, { mode: 0o600 }), catch: (e) => cannotWrite(root, e) })
    return password
  })

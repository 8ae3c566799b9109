import { Effect } from "effect"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { promisify } from "node:util"
import { serverEntry } from "../../scripts/build-server.mjs"

export const exec = promisify(execFile)
/** node's arguments for the platform as npm start runs it: its compiled tree (the test setup compiles it). */
export const platformArgs: ReadonlyArray<string> = ["--enable-source-maps", serverEntry]

export const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

export interface Started {
  readonly child: ChildProcess
  readonly output: () => string
}

/** A command in a process group of its own (as a terminal runs it), its output collected. */
export const startProcess = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Record<string, string>; readonly uid?: number; readonly gid?: number }
): Started => {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    ...(options.gid !== undefined ? { gid: options.gid } : {})
  })
  let output = ""
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()))
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()))
  return { child, output: () => output }
}

/** What a terminal's Ctrl-C or a supervisor does: the signal to the whole process group. */
export const signalGroup = (started: Started, signal: NodeJS.Signals) =>
  Effect.sync(() => {
    if (started.child.pid !== undefined && started.child.exitCode === null) process.kill(-started.child.pid, signal)
  })

const groupAlive = (pid: number | undefined) => {
  if (pid === undefined) return false
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Waits until the process and everything in its group has exited (`npm start` itself may end
 * before the platform under it has finished its shutdown).
 */
export const exited = (started: Started, seconds = 60) =>
  Effect.gen(function*() {
    yield* Effect.async<void>((resume) => {
      if (started.child.exitCode !== null || started.child.signalCode !== null) return resume(Effect.void)
      started.child.once("exit", () => resume(Effect.void))
    })
    while (groupAlive(started.child.pid)) yield* sleep(100)
    yield* sleep(100)
    return started.child.exitCode
  }).pipe(
    Effect.timeoutFail({ duration: `${seconds} seconds`, onTimeout: () => new Error(`did not exit in ${seconds} s:\n${started.output()}`) }),
    Effect.orDie
  )

export type Probe = number | "refused" | "timeout" | "reset"

/** One GET with a short client timeout: a status, or how the connection failed. */
export const probe = (url: string, timeoutMs = 2000): Effect.Effect<Probe> =>
  Effect.promise(() =>
    fetch(url, { signal: AbortSignal.timeout(timeoutMs) }).then(
      async (r) => {
        await r.arrayBuffer().catch(() => undefined)
        return r.status
      },
      (e: unknown) => {
        const text = String((e as { cause?: { code?: string } })?.cause?.code ?? (e as Error)?.name ?? e)
        return (/ECONNREFUSED/.test(text) ? "refused" : /Timeout|Abort/i.test(text) ? "timeout" : "reset")
      }
    )
  )

/**
 * Polls `/health` from the moment the process is spawned until it answers 200: every probe must
 * be answered (a status) or refused, never left hanging. Returns what was seen, in order.
 */
export const waitHealthy = (base: string, started: Started, seconds = 180) =>
  Effect.gen(function*() {
    const seen: Array<Probe> = []
    const until = Date.now() + seconds * 1000
    while (Date.now() < until) {
      const result = yield* probe(`${base}/health`)
      if (seen.at(-1) !== result) seen.push(result)
      if (result === 200) return seen
      if (started.child.exitCode !== null) return yield* Effect.dieMessage(`exited with ${started.child.exitCode}:\n${started.output()}`)
      yield* sleep(100)
    }
    return yield* Effect.dieMessage(`never became healthy (saw ${seen.join(", ")}):\n${started.output()}`)
  })

/** The child's output reaches this process through a pipe, read apart from its HTTP answers: wait for a line. */
export const waitForOutput = (started: Started, text: string, seconds = 10) =>
  Effect.gen(function*() {
    const until = Date.now() + seconds * 1000
    while (!started.output().includes(text)) {
      if (Date.now() > until) return yield* Effect.dieMessage(`never printed "${text}":\n${started.output()}`)
      yield* sleep(50)
    }
  })

/**
 * A clean stop under `npm start`: npm re-raises the signal on itself once its script ended, so
 * npm's own status is the signal; the platform shows its clean stop in its output.
 */
export const stoppedCleanly = (started: Started) =>
  (started.child.exitCode === 0 || started.child.signalCode === "SIGTERM" || started.child.signalCode === "SIGINT") &&
  started.output().includes("Embedded PostgreSQL stopped")

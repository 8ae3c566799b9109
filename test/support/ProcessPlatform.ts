import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { type HttpResult, request, type RequestOptions } from "./Http.js"
import { platformArgs } from "./Processes.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/** This process's environment as a plain record, for a child platform process to start from. */
export const inheritedEnv = (): Record<string, string> =>
  Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))

/**
 * What a platform process of a multi-process test needs: this process's environment, the suite's
 * database, fresh secrets shared by all its processes, an admin `<name>@admin.test` with password
 * `<name>-admin-password`, and the scripted model.
 */
export const platformEnv = (name: string, databaseUrl: string, modelBaseUrl: string): Record<string, string> => ({
  ...inheritedEnv(),
  DATABASE_URL: databaseUrl,
  HOST: "127.0.0.1",
  JWT_SECRET: randomBytes(32).toString("hex"),
  CREDENTIALS_KEY: randomBytes(32).toString("base64"),
  BOOTSTRAP_ADMIN_EMAIL: `${name}@admin.test`,
  BOOTSTRAP_ADMIN_PASSWORD: `${name}-admin-password`,
  LLM_BASE_URL: modelBaseUrl,
  LLM_MODELS: "test-model",
  // Two cores running the suite keep every loop late: fair shares under overload have their own test (start-shares).
  OVERLOAD_LOOP_LAG_MS: "0"
})

/** JSON calls on a platform at `baseUrl`. */
export const apiOf =
  (baseUrl: string) => (method: string, path: string, body?: unknown, token?: string, options: RequestOptions = {}): Effect.Effect<HttpResult> =>
    request(baseUrl, method, path, { ...options, ...(body !== undefined ? { body } : {}), ...(token !== undefined ? { token } : {}) })

export type Api = ReturnType<typeof apiOf>

/** Polls a run until it is completed, failed or cancelled. */
export const waitTerminal = (api: Api, token: string, runId: string, timeoutMs = 30_000) =>
  Effect.gen(function*() {
    const until = Date.now() + timeoutMs
    for (;;) {
      const r = yield* api("GET", `/api/v1/workflow/runs/${runId}`, undefined, token)
      if (["completed", "failed", "cancelled"].includes(r.body?.status)) return r.body
      if (Date.now() > until) return yield* Effect.dieMessage(`run ${runId} never finished (${r.body?.status})`)
      yield* sleep(100)
    }
  })

/**
 * The platform as a child process (`npm start`'s entry point) that a test may SIGKILL and start
 * again on the same data; killed when the scope closes.
 */
export const processPlatform = (env: Record<string, string>) =>
  Effect.gen(function*() {
    let child: ChildProcess | undefined
    let logs = ""
    const keep = (chunk: Buffer) => {
      logs = (logs + chunk.toString("utf8")).slice(-1_000_000)
    }
    const baseUrl = `http://127.0.0.1:${env.PORT}`
    const start = Effect.gen(function*() {
      child = spawn(process.execPath, [...platformArgs], { env, stdio: ["ignore", "pipe", "pipe"] })
      child.stdout?.on("data", keep)
      child.stderr?.on("data", keep)
      // By time, not tries: a start beside the rest of the suite on two cores can take over 20 s.
      for (const until = Date.now() + 90_000; Date.now() < until;) {
        // A connection made while the server is still starting can hang: give each try a second.
        const ok = yield* Effect.promise(() => fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false))
        if (ok) return
        yield* sleep(100)
      }
      return yield* Effect.dieMessage(`platform (${env.ROLE ?? "all"}) did not start: ${logs.slice(-2000)}`)
    })
    const kill = Effect.async<void>((resume) => {
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
      child.once("exit", () => resume(Effect.void))
      child.kill("SIGKILL")
    })
    /** Sends a signal (SIGTERM for a graceful stop). */
    const signal = (name: NodeJS.Signals) => void child?.kill(name)
    /** When the process exited (now, if it already has). */
    const exited = Effect.async<number>((resume) => {
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) return resume(Effect.succeed(Date.now()))
      child.once("exit", () => resume(Effect.succeed(Date.now())))
    })
    yield* Effect.addFinalizer(() => kill)
    /** What the process wrote to stdout and stderr (its last megabyte). */
    const output = () => logs
    return { baseUrl, api: apiOf(baseUrl), start, kill, signal, exited, output }
  })

/** A split deployment: a `ROLE=runners` process, then a `ROLE=gateway` process in front of it, on the same settings. */
export const splitPlatform = (common: Record<string, string>) =>
  Effect.gen(function*() {
    const runner = yield* processPlatform({
      ...common,
      ROLE: "runners",
      PORT: String(yield* freePort),
      RUNNER_PORT: String(yield* freePort),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-runner-"))
    })
    yield* runner.start
    const gateway = yield* processPlatform({
      ...common,
      ROLE: "gateway",
      PORT: String(yield* freePort),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-gateway-"))
    })
    yield* gateway.start
    return { runner, gateway }
  })

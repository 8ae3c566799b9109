import { Context, Effect, Layer } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { request } from "./Http.js"
import { platformArgs } from "./Processes.js"
import { platformEnv } from "./ProcessPlatform.js"
import { sleep } from "./RunPlatform.js"
import { ScriptedModel } from "./ScriptedModel.js"
import { migratedDatabase } from "./TestDatabase.js"

/** The platform as a separate process that the test can SIGKILL and start again. */
export class Server extends Context.Tag("CrashServer")<Server, {
  readonly baseUrl: string
  readonly databaseUrl: string
  readonly start: () => Effect.Effect<void>
  readonly kill: () => Effect.Effect<void>
}>() {}
/** The crash server with settings of the test's own on top of the usual ones. */
export const serverLiveWith = (extra: Record<string, string>) =>
  Layer.scoped(
    Server,
    Effect.gen(function*() {
      const db = yield* migratedDatabase
      const model = yield* ScriptedModel
      const port = yield* freePort
      const env: Record<string, string> = {
        ...platformEnv("crash", db.url, model.baseUrl),
        PORT: String(port),
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-crash-")),
        EVAL_LEASE_SECONDS: "2",
        EVAL_CONCURRENCY: "4",
        ...extra
      }
      delete env.REDIS_URL
      let child: ChildProcess | undefined
      const baseUrl = `http://127.0.0.1:${port}`
      const start = () =>
        Effect.gen(function*() {
          if (child !== undefined && child.exitCode === null && child.signalCode === null) return
          child = spawn(process.execPath, [...platformArgs], { env, stdio: "ignore" })
          // By time, not tries (a start beside the suite on two cores can take 20 s); a second a try (a probe can hang).
          for (const until = Date.now() + 90_000; Date.now() < until;) {
            const ok = yield* Effect.promise(() => fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false))
            if (ok) return
            if (child.exitCode !== null) return yield* Effect.dieMessage(`server exited while starting (code ${child.exitCode})`)
            yield* sleep(100)
          }
          return yield* Effect.dieMessage("server did not start")
        })
      const kill = () =>
        Effect.async<void>((resume) => {
          if (child === undefined || child.exitCode !== null) return resume(Effect.void)
          child.once("exit", () => resume(Effect.void))
          child.kill("SIGKILL")
        })
      yield* Effect.addFinalizer(() => kill())
      return { baseUrl, databaseUrl: db.url, start, kill }
    })
  ).pipe(Layer.provideMerge(ScriptedModel.layer))

export const ServerLive = serverLiveWith({})

export const apiOf = (baseUrl: string) => (method: string, p: string, body?: unknown, token?: string) =>
  request(baseUrl, method, p, { ...(body !== undefined ? { body } : {}), ...(token !== undefined ? { token } : {}) })

/** The server's API, signed in as its admin. */
export const signedIn = (baseUrl: string) =>
  Effect.map(
    apiOf(baseUrl)("POST", "/api/v1/auth/login", { email: "crash@admin.test", password: "crash-admin-password" }),
    (login) => ({ api: apiOf(baseUrl), token: login.body.access_token as string })
  )

import { Data, Effect, Option } from "effect"
import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { Piscina } from "piscina"
import { AppConfig } from "../Config.js"

/** A task: the exported function `fn` of a module (by its file URL), run on a thread of the pool. */
export interface WorkerTask<I, O> {
  readonly module: string
  readonly fn: string
  readonly _types?: (input: I) => O
}

type TaskModule = Record<string, unknown>
type Input<F> = F extends (input: infer I) => unknown ? I : never
type Output<F> = F extends (input: never) => infer O ? Awaited<O> : never

/** Every task module named at import time: a new thread loads them all before its first task asks. */
const taskModules = new Set<string>()

/**
 * `workerTask<typeof import("./X.js"), "fn">(new URL("./X.js", import.meta.url), "fn")`: the
 * task's types come from the module (a type-only import, so this process never loads it).
 */
export const workerTask = <M extends TaskModule, K extends keyof M & string>(module: URL, fn: K): WorkerTask<Input<M[K]>, Output<M[K]>> => {
  taskModules.add(module.href)
  return { module: module.href, fn }
}

export type WorkerFailure = "refused" | "time" | "memory" | "busy" | "crashed"

/**
 * A task that did not produce its result: `refused` (the task turned the input down, with its
 * own code), `time` / `memory` (over a limit: the thread was stopped), `busy` (the tenant has too
 * many tasks waiting), `crashed` (the task threw).
 */
export class WorkerTaskFailed extends Data.TaggedError("WorkerTaskFailed")<{
  readonly reason: WorkerFailure
  readonly code: string
  readonly message: string
}> {}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly code: string; readonly message: string }

export interface RunOptions {
  /** Whose task: each tenant holds at most its share of the threads. */
  readonly tenantId: string
  /** Time limit once a thread is free for it (default WORKER_TASK_TIMEOUT_SECONDS). */
  readonly timeoutMs?: number
}

const messageOf = (error: unknown) => typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)

const isOutOfMemory = (error: unknown) =>
  error instanceof Error && ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY" || /out of memory|heap limit/i.test(error.message))

/**
 * The one place where work on tenant-supplied input that can be heavy runs (scripts, office
 * files, OpenAPI documents, uploaded documents and mail, CSV): worker threads (piscina) with a
 * memory limit each, a time limit per task after which its thread is terminated, and a share of
 * the threads per tenant, so that no tenant's input stalls the event loop or takes every thread.
 */
export class WorkerPool extends Effect.Service<WorkerPool>()("WorkerPool", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const threads = Option.getOrElse(config.workerThreads, () => Math.max(2, availableParallelism()))
    const share = Math.max(1, Math.min(threads, Option.getOrElse(config.workerTenantShare, () => Math.ceil(threads / 2))))
    const defaultTimeoutMs = config.workerTaskTimeoutSeconds * 1000
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const p = new Piscina({
          filename: fileURLToPath(new URL("./worker.mjs", import.meta.url)),
          minThreads: Math.min(threads, config.workerWarmThreads),
          maxThreads: threads,
          workerData: { preload: config.workerWarmThreads > 0 ? [...taskModules] : [] },
          idleTimeout: 60_000,
          execArgv: [],
          resourceLimits: { maxOldGenerationSizeMb: config.workerMemoryMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 }
        })
        // A thread that dies between tasks: piscina replaces it; nothing was waiting on it.
        p.on("error", (error: unknown) => Effect.runFork(Effect.logWarning("A worker thread failed between tasks", String(error))))
        return p
      }),
      (p) => Effect.promise(() => p.destroy())
    )
    // Tasks reach piscina only when a thread is free, so a task's time limit counts its own work.
    const free = yield* Effect.makeSemaphore(threads)
    const tenants = new Map<string, { readonly semaphore: Effect.Semaphore; pending: number }>()
    const tenantShare = (tenantId: string) => {
      let entry = tenants.get(tenantId)
      if (entry === undefined) {
        entry = { semaphore: Effect.unsafeMakeSemaphore(share), pending: 0 }
        tenants.set(tenantId, entry)
      }
      return entry
    }

    const execute = (task: WorkerTask<unknown, unknown>, input: unknown, timeoutMs: number) =>
      Effect.tryPromise({
        try: (signal) => pool.run({ module: task.module, fn: task.fn, input }, { signal }) as Promise<Outcome>,
        catch: (error) =>
          isOutOfMemory(error)
            ? new WorkerTaskFailed({
              reason: "memory",
              code: "INPUT_LIMIT_EXCEEDED",
              message: `Processing the input needed more than ${config.workerMemoryMb} MB of memory and was stopped`
            })
            : new WorkerTaskFailed({ reason: "crashed", code: "INPUT_UNREADABLE", message: messageOf(error) })
      }).pipe(
        Effect.timeoutFail({
          duration: timeoutMs,
          onTimeout: () =>
            new WorkerTaskFailed({
              reason: "time",
              code: "INPUT_LIMIT_EXCEEDED",
              message: `Processing the input took longer than ${timeoutMs / 1000} s and was stopped`
            })
        }),
        Effect.flatMap((outcome) =>
          outcome.ok ? Effect.succeed(outcome.value) : Effect.fail(new WorkerTaskFailed({ reason: "refused", code: outcome.code, message: outcome.message }))
        )
      )

    const run = <I, O>(task: WorkerTask<I, O>, input: I, options: RunOptions): Effect.Effect<O, WorkerTaskFailed> =>
      Effect.suspend(() => {
        const tenant = tenantShare(options.tenantId)
        if (tenant.pending >= config.workerTenantQueue) {
          return Effect.fail(
            new WorkerTaskFailed({
              reason: "busy",
              code: "WORKERS_BUSY",
              message: `This workspace already has ${tenant.pending} heavy tasks in progress; try again shortly`
            })
          )
        }
        tenant.pending++
        return tenant.semaphore.withPermits(1)(free.withPermits(1)(execute(task as WorkerTask<unknown, unknown>, input, options.timeoutMs ?? defaultTimeoutMs)))
          .pipe(
            Effect.ensuring(Effect.sync(() => {
              tenant.pending--
            })),
            Effect.map((value) => value as O)
          )
      }).pipe(Effect.withSpan("WorkerPool.run", { attributes: { "worker.task": task.fn, "tenant.id": options.tenantId }, captureStackTrace: false }))

    return { run, threads, share }
  })
}) {}

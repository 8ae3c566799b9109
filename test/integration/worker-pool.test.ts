import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Fiber, Layer } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { WorkerPool, workerTask } from "../../platform/workers/WorkerPool.js"
import type * as Tasks from "../fixtures/worker-tasks.js"

const module = new URL("../fixtures/worker-tasks.ts", import.meta.url)
const spin = workerTask<typeof Tasks, "spin">(module, "spin")
const hog = workerTask<typeof Tasks, "hog">(module, "hog")
const refuseIt = workerTask<typeof Tasks, "refuseIt">(module, "refuseIt")
const crash = workerTask<typeof Tasks, "crash">(module, "crash")
const threadId = workerTask<typeof Tasks, "threadId">(module, "threadId")

const pool = (env: Record<string, string>) =>
  WorkerPool.Default.pipe(
    Layer.provide(AppConfig.layer),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ WORKER_THREADS: "2", ...env })))))
  )

const failure = <A, E>(effect: Effect.Effect<A, E>) => Effect.map(Effect.either(effect), (e) => Either.isLeft(e) ? e.left : undefined)

describe("the worker pool", () => {
  it.scopedLive("a task past its time limit is stopped with its thread, and the pool goes on with a new one", () =>
    Effect.gen(function*() {
      const workers = yield* WorkerPool
      const first = yield* workers.run(threadId, undefined, { tenantId: "a" })
      const stopped = yield* failure(workers.run(spin, { ms: 60_000 }, { tenantId: "a", timeoutMs: 500 }))
      assert.deepInclude(stopped, { reason: "time", code: "INPUT_LIMIT_EXCEEDED" })
      assert.strictEqual(yield* workers.run(spin, { ms: 1 }, { tenantId: "a" }), 1)
      assert.notStrictEqual(yield* workers.run(threadId, undefined, { tenantId: "a" }), first, "the pool's one thread was replaced")
    }).pipe(Effect.provide(pool({ WORKER_THREADS: "1" }))), 60_000)

  it.scopedLive("a task over the memory limit fails as such; refusals and crashes come back as themselves", () =>
    Effect.gen(function*() {
      const workers = yield* WorkerPool
      assert.deepInclude(yield* failure(workers.run(hog, undefined, { tenantId: "a", timeoutMs: 30_000 })), { reason: "memory", code: "INPUT_LIMIT_EXCEEDED" })
      assert.deepInclude(yield* failure(workers.run(refuseIt, { why: "bad document" }, { tenantId: "a" })), {
        reason: "refused",
        code: "INVALID_SPEC",
        message: "bad document"
      })
      assert.deepInclude(yield* failure(workers.run(crash, undefined, { tenantId: "a" })), { reason: "crashed", message: "task bug" })
      assert.strictEqual(yield* workers.run(spin, { ms: 1 }, { tenantId: "a" }), 1)
    }).pipe(Effect.provide(pool({ WORKER_MEMORY_MB: "64" }))), 60_000)

  it.scopedLive(
    "a tenant holds at most its share of the threads, and past its queue is refused; another tenant is served meanwhile",
    () =>
      Effect.gen(function*() {
        const workers = yield* WorkerPool
        assert.strictEqual(workers.share, 1)
        const done: Array<string> = []
        const busy = yield* Effect.forkAll(
          Array.from({ length: 3 }, (_, i) => Effect.tap(workers.run(spin, { ms: 700 }, { tenantId: "a" }), () => Effect.sync(() => done.push(`a${i}`))))
        )
        yield* Effect.sleep("100 millis")
        assert.deepInclude(yield* failure(workers.run(spin, { ms: 1 }, { tenantId: "a" })), { reason: "busy", code: "WORKERS_BUSY" })
        yield* workers.run(spin, { ms: 1 }, { tenantId: "b" })
        done.push("b")
        yield* Fiber.join(busy)
        assert.deepStrictEqual(done, ["b", "a0", "a1", "a2"], "b ran beside a's first task; a's ran one at a time")
      }).pipe(
        // No warm thread: b's thread, started for it, would also load every task module first.
        Effect.provide(pool({ WORKER_TENANT_QUEUE: "3", WORKER_WARM_THREADS: "0" }))
      ),
    60_000
  )
})

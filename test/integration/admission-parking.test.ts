import { assert, it, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Option, Scope, TestClock, TestContext, TestServices } from "effect"
import { randomUUID } from "node:crypto"
import { DatabaseLive } from "../../platform/Database.js"
import { uuidV7 } from "../../platform/TimedId.js"
import { TenantAdmission } from "../../runtime/run/Admission.js"
import { eventually } from "../support/RunPlatform.js"
import { testDatabase } from "../support/TestDatabase.js"
import { configLayer } from "../support/UnitLayers.js"

const AdmissionLive = Layer.unwrapScoped(
  Effect.map(testDatabase, (db) =>
    TenantAdmission.layer.pipe(
      Layer.provide(DatabaseLive),
      Layer.provide(configLayer({ DATABASE_URL: db.url, TENANT_MAX_RUNS_IN_FLIGHT: "1", TENANT_MAX_RUNS_WAITING: "1" }))
    ))
).pipe(Layer.orDie)

/** A tenant's line as a test sees it: who said they wait, who was launched again. */
const lineOfTenant = Effect.map(TenantAdmission, (admission) => {
  const tenant = randomUUID()
  const relaunched: Array<string> = []
  const queued: Array<string> = []
  const enter = (runId: string, scope: Scope.Scope) =>
    admission.enter(tenant, () => Effect.sync(() => void queued.push(runId)), { runId, relaunch: Effect.sync(() => void relaunched.push(runId)) }).pipe(
      Scope.extend(scope)
    )
  return { enter, queued, relaunched }
})

// A tenant's line with one slot and one run kept waiting: later runs are parked and launched again
// one per freed slot; a relaunch that never arrives does not leave the rest parked for good.
layer(AdmissionLive, { timeout: "60 seconds", excludeTestServices: true })("tenant line parking", (it) => {
  it.effect("past the waiting runs a run is parked; each freed slot relaunches one; a line left with free slots and parked runs relaunches one within seconds", () =>
    Effect.gen(function*() {
      const { enter, queued, relaunched } = yield* lineOfTenant
      const first = yield* Scope.make()
      assert.strictEqual(yield* enter("r1", first), "entered")
      const second = yield* Scope.make()
      const waiting = yield* Effect.fork(enter("r2", second))
      yield* eventually(Effect.sync(() => (queued.includes("r2") ? true : undefined)), "r2 waits")
      for (const id of ["r3", "r4", "r5"]) assert.strictEqual(yield* enter(id, yield* Scope.make()), "parked", id)
      assert.deepStrictEqual(queued, ["r2", "r3", "r4", "r5"], "each said once that it waits")

      // r1 ends: r2 takes its slot, r3 is launched again (and, here, never comes back).
      yield* Scope.close(first, Exit.void)
      assert.strictEqual(yield* Fiber.join(waiting), "entered")
      yield* eventually(Effect.sync(() => (relaunched.length === 1 ? true : undefined)), "r3 relaunched")
      // r2 ends: no one waits, r4 is launched again (and never comes back either): r5 would be stranded.
      yield* Scope.close(second, Exit.void)
      yield* eventually(Effect.sync(() => (relaunched.length === 2 ? true : undefined)), "r4 relaunched")
      assert.deepStrictEqual(relaunched, ["r3", "r4"])
      yield* eventually(Effect.sync(() => (relaunched.length === 3 ? true : undefined)), "r5 relaunched by the line's check", 12_000)
      assert.deepStrictEqual(relaunched, ["r3", "r4", "r5"])

      // A promoted run (relaunched) that arrives joins the line instead of parking again: here it finds a free slot.
      assert.strictEqual(yield* enter("r5", yield* Scope.make()), "entered")
    }))

  it.effect("runs keep the order they were started in (their ids' time), whatever order they reach the line in: an earlier run that finds the waiting room full parks the later one waiting there", () =>
    Effect.gen(function*() {
      const { enter, queued, relaunched } = yield* lineOfTenant
      const t0 = Date.now() - 60_000
      const [a, b, c, d] = [1, 2, 3, 4].map((i) => uuidV7(t0 + i))
      const first = yield* Scope.make()
      assert.strictEqual(yield* enter(a, first), "entered")
      // c reaches the line before b although b was started first.
      const cWaits = yield* Effect.fork(enter(c, yield* Scope.make()))
      yield* eventually(Effect.sync(() => (queued.includes(c) ? true : undefined)), "c waits")
      const bScope = yield* Scope.make()
      const bWaits = yield* Effect.fork(enter(b, bScope))
      // The waiting room (one run) is b's: c is parked to make room for it.
      assert.strictEqual(yield* Fiber.join(cWaits), "parked")
      yield* eventually(Effect.sync(() => (queued.includes(b) ? true : undefined)), "b waits")
      assert.strictEqual(yield* enter(d, yield* Scope.make()), "parked")
      assert.deepStrictEqual(queued, [c, b, d], "each said once that it waits")

      // a ends: b (not c) takes the slot, and the first parked run launched again is c, before d.
      yield* Scope.close(first, Exit.void)
      assert.strictEqual(yield* Fiber.join(bWaits), "entered")
      yield* eventually(Effect.sync(() => (relaunched.length === 1 ? true : undefined)), "c relaunched")
      assert.deepStrictEqual(relaunched, [c])
      // c comes back and waits (once more, without saying so again); d stays parked behind it.
      const cBack = yield* Effect.fork(enter(c, yield* Scope.make()))
      yield* Scope.close(bScope, Exit.void)
      assert.strictEqual(yield* Fiber.join(cBack), "entered")
      yield* eventually(Effect.sync(() => (relaunched.length === 2 ? true : undefined)), "d relaunched")
      assert.deepStrictEqual(relaunched, [c, d])
      assert.deepStrictEqual(queued, [c, b, d])
    }))
})

// The line's clock is a test clock: a minute passes at once. It is made and installed here, not
// taken from the test's services: after a platform built with OTLP export in the same worker
// (test files share modules), later tests found that platform's clock and tracer, not the test's.
it.scoped("a relaunched run that never arrives is forgotten after a minute; arriving later, it is parked again", () =>
  Effect.gen(function*() {
    const clock = Context.get(yield* Layer.build(OwnTestClock), TestClock.TestClock)
    yield* Effect.withClock(relaunchForgotten(clock), clock)
  }), { timeout: 60_000 })

const OwnTestClock = TestClock.defaultTestClock.pipe(
  Layer.provide(Layer.merge(TestServices.liveLayer(), TestServices.annotationsLayer())),
  Layer.provide(TestContext.LiveContext)
)

const relaunchForgotten = (clock: TestClock.TestClock) =>
  Effect.gen(function*() {
    const admission = Context.get(yield* Layer.build(AdmissionLive), TenantAdmission)
    const tenant = randomUUID()
    const relaunched: Array<string> = []
    const enter = (runId: string, scope: Scope.Scope, waits?: Deferred.Deferred<void>) =>
      admission.enter(tenant, () => (waits === undefined ? Effect.void : Deferred.succeed(waits, undefined)), {
        runId,
        relaunch: Effect.sync(() => void relaunched.push(runId))
      }).pipe(Scope.extend(scope))
    const first = yield* Scope.make()
    assert.strictEqual(yield* enter("r1", first), "entered")
    const r2Waits = yield* Deferred.make<void>()
    const r2 = yield* Effect.fork(enter("r2", yield* Scope.make(), r2Waits))
    yield* Deferred.await(r2Waits)
    assert.strictEqual(yield* enter("r3", yield* Scope.make()), "parked")
    yield* Scope.close(first, Exit.void)
    assert.strictEqual(yield* Fiber.join(r2), "entered")
    yield* Effect.yieldNow()
    assert.deepStrictEqual(relaunched, ["r3"], "r3 relaunched (and, here, lost)")
    const r4Waits = yield* Deferred.make<void>()
    yield* Effect.fork(enter("r4", yield* Scope.make(), r4Waits))
    yield* Deferred.await(r4Waits)

    // Past the minute and the line's next check after it.
    yield* clock.adjust("66 seconds")
    // Had r3 been kept as relaunched, it would join the line behind r4 instead of parking.
    const late = yield* Effect.fork(enter("r3", yield* Scope.make()))
    for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
    const polled = yield* Fiber.poll(late)
    assert.isTrue(Option.isSome(polled) && Exit.isSuccess(polled.value) && polled.value.value === "parked", "r3 parked again")
  })

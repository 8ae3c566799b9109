import { SqlClient } from "@effect/sql"
import { Clock, Context, Deferred, Effect, Exit, Layer, Metric, Option, Schedule, Schema, type Scope } from "effect"
import { gaugeAdd, runsQueued } from "../../otel/Metrics.js"
import { AppConfig } from "../../platform/Config.js"
import { decodeRows } from "../../platform/Rows.js"
import { uuidV7Time } from "../../platform/TimedId.js"

/**
 * A place in line: the run's start time (from its UUIDv7 id), so that runs keep the order in which
 * they were accepted whatever order their activations reach the line in; ties and runs without one
 * keep arrival order.
 */
interface InLine {
  readonly order: number
}

interface Waiter extends InLine {
  /** "entered" hands the run a slot; "parked" sends it out of memory to make room for an earlier run. */
  readonly turn: Deferred.Deferred<"entered" | "parked">
  readonly parking: Parking | undefined
}

interface Parked extends InLine {
  readonly parking: Parking
}

const orderOf = (parking: Parking | undefined) => (parking === undefined ? Infinity : uuidV7Time(parking.runId) ?? Infinity)

/** Inserts after everything of the same or an earlier order. */
const insertInOrder = <A extends InLine>(list: Array<A>, item: A) => {
  let i = list.length
  while (i > 0 && (list[i - 1]?.order ?? -Infinity) > item.order) i--
  list.splice(i, 0, item)
}

interface Line {
  inFlight: number
  /** The tenant's limit as last read by a run entering (a limit raised meanwhile admits waiting runs first). */
  limit: number
  /** Runs waiting for a slot, in order: a slot that frees goes to the first. */
  readonly waiting: Array<Waiter>
  /** Runs past the waiting ones, in order: only their relaunch is kept (an id's worth of memory). */
  readonly parked: Array<Parked>
  /**
   * Parked runs relaunched, with when: on arrival they join `waiting` instead of parking again. One
   * that never arrives (cancelled meanwhile, its shard moved) is forgotten after PROMOTED_TTL_MS.
   */
  readonly promoted: Map<string, number>
}

/** How a run that may be parked comes back: its id and what launches it again. */
export interface Parking {
  readonly runId: string
  readonly relaunch: Effect.Effect<void>
}

/** How often a line with free slots, no one waiting and parked runs launches one of them. */
const STRANDED_CHECK = "5 seconds"

/** How long a relaunched run is expected; one arriving later may be parked again (in line, not lost). */
const PROMOTED_TTL_MS = 60_000

/** How long a tenant's limit is read from its settings before it is read again. */
const LIMIT_TTL_MS = 5_000

type Enter = (
  tenantId: string,
  onWait: (limit: number) => Effect.Effect<void>,
  parking?: Parking
) => Effect.Effect<"entered" | "parked", never, Scope.Scope>

const waitingGauge = Metric.tagged(runsQueued, "state", "waiting")
const parkedGauge = Metric.tagged(runsQueued, "state", "parked")

/**
 * Per-tenant lines on this process: at most the tenant's limit (its `setting`, else the
 * platform's default) hold a slot at once; the others wait in their tenant's own line, first come
 * first served, so one tenant's flood holds up only its own work. A slot is held for a scope.
 */
const makeTenantLines = (
  setting: "max_runs_in_flight" | "max_model_calls_in_flight",
  defaultLimit: (config: AppConfig["Type"]) => number,
  counted: boolean
) =>
  Effect.gen(function*() {
    const count = (gauge: typeof waitingGauge, by: number) => (counted ? gaugeAdd(gauge, by) : Effect.void)
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const fallback = defaultLimit(config)
    const maxWaiting = config.tenantMaxRunsWaiting
    const limits = new Map<string, { readonly limit: number; readonly at: number }>()
    const lines = new Map<string, Line>()

    const limitOf = (tenantId: string) =>
      Effect.suspend(() => {
        const known = limits.get(tenantId)
        if (known !== undefined && Date.now() - known.at < LIMIT_TTL_MS) return Effect.succeed(known.limit)
        return sql`SELECT (settings->>${setting})::int AS max FROM tenants WHERE id = ${tenantId}`.pipe(
          decodeRows("tenants", Schema.Struct({ max: Schema.NullOr(Schema.Number) })),
          Effect.map((rows) => rows[0]?.max ?? fallback),
          Effect.orElseSucceed(() => known?.limit ?? fallback),
          Effect.tap((limit) => Effect.sync(() => limits.set(tenantId, { limit, at: Date.now() })))
        )
      })

    const lineOf = (tenantId: string) => {
      const known = lines.get(tenantId)
      if (known !== undefined) return known
      const line: Line = { inFlight: 0, limit: fallback, waiting: [], parked: [], promoted: new Map() }
      lines.set(tenantId, line)
      return line
    }

    /** For each slot that frees, one parked run is launched again, to join the waiting ones. */
    const unpark = (line: Line) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const next = line.parked.shift()
        if (next === undefined) return Effect.void
        line.promoted.set(next.parking.runId, now)
        return Effect.zipRight(count(parkedGauge, -1), Effect.asVoid(Effect.forkDaemon(next.parking.relaunch)))
      })

    /** Hands the free slots to the first waiting runs; for each, one parked run is launched again to join the waiting. */
    const admitWaiting = (line: Line) =>
      Effect.suspend(() => {
        const handed: Array<Waiter> = []
        for (let next = line.waiting[0]; next !== undefined && line.inFlight < line.limit; next = line.waiting[0]) {
          line.waiting.shift()
          line.inFlight++
          handed.push(next)
        }
        return Effect.as(
          Effect.forEach(handed, (next) => Effect.zipRight(Deferred.succeed(next.turn, "entered"), Effect.zipRight(count(waitingGauge, -1), unpark(line))), {
            discard: true
          }),
          handed.length
        )
      })

    const release = (line: Line) =>
      Effect.suspend(() => {
        line.inFlight--
        if (line.waiting.length === 0 && line.parked.length === 0) return Effect.void
        return Effect.flatMap(admitWaiting(line), (handed) => (handed === 0 ? unpark(line) : Effect.void))
      })

    /**
     * Waits (interruptibly) until the tenant has a slot for this run; the slot is then counted. A
     * run that may be parked is, past `maxWaiting` waiting or behind parked ones, unless it is
     * earlier than the last waiting run: that one is parked instead. So every waiting run is
     * earlier than every parked one.
     */
    const take = (line: Line, limit: number, onWait: (limit: number) => Effect.Effect<void>, parking: Parking | undefined) =>
      Effect.gen(function*() {
        const promoted = parking !== undefined && line.promoted.delete(parking.runId)
        line.limit = limit
        if (line.inFlight < limit && line.waiting.length === 0) {
          line.inFlight++
          return "entered" as const
        }
        const order = orderOf(parking)
        const full = line.waiting.length >= maxWaiting
        const behindParked = line.parked.length > 0 && (line.parked[0]?.order ?? Infinity) <= order
        if (parking !== undefined && !promoted && (full || behindParked)) {
          const last = line.waiting[line.waiting.length - 1]
          if (!full || last?.parking === undefined || last.order <= order) {
            insertInOrder(line.parked, { order, parking })
            yield* count(parkedGauge, 1)
            yield* onWait(limit)
            return "parked" as const
          }
          line.waiting.pop()
          insertInOrder(line.parked, { order: last.order, parking: last.parking })
          yield* Deferred.succeed(last.turn, "parked")
          yield* Effect.zipRight(count(waitingGauge, -1), count(parkedGauge, 1))
        }
        // In line before anything that waits: a slot freed meanwhile comes to this run.
        const waiter: Waiter = { order, turn: yield* Deferred.make<"entered" | "parked">(), parking }
        insertInOrder(line.waiting, waiter)
        yield* count(waitingGauge, 1)
        // Slots free with runs waiting: the limit was raised. They go to the first in line, maybe this run.
        yield* admitWaiting(line)
        const admitted = yield* Deferred.isDone(waiter.turn)
        const leave = Effect.flatMap(Deferred.poll(waiter.turn), (handed) => {
          if (Option.isSome(handed)) return Effect.flatMap(handed.value, (turn) => (turn === "entered" ? release(line) : Effect.void))
          line.waiting.splice(line.waiting.indexOf(waiter), 1)
          return count(waitingGauge, -1)
        })
        // A promoted run said it was queued when it was parked.
        return yield* Effect.zipRight(promoted || admitted ? Effect.void : onWait(limit), Deferred.await(waiter.turn)).pipe(
          Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : leave))
        )
      })

    const enter: Enter = (tenantId, onWait, parking) =>
      Effect.flatMap(limitOf(tenantId), (limit) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function*() {
            const line = lineOf(tenantId)
            const admitted = yield* restore(take(line, limit, onWait, parking))
            if (admitted === "entered") yield* Effect.addFinalizer(() => release(line))
            return admitted
          })
        ))

    /**
     * `effect` holding a slot of the tenant: taken at once, without a scope, when one is free and
     * no one waits (the usual case: a scope per model call was a tenth of a run's Effect
     * instructions); else in line as `enter`.
     */
    const withSlot = <A, E, R>(tenantId: string, onWait: (limit: number) => Effect.Effect<void>, effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(limitOf(tenantId), (limit) => {
        const line = lineOf(tenantId)
        return Effect.acquireUseRelease(
          Effect.sync(() => {
            if (line.inFlight >= limit || line.waiting.length > 0) return false
            line.limit = limit
            line.inFlight++
            return true
          }),
          (free) => (free ? effect : Effect.scoped(Effect.zipRight(enter(tenantId, onWait), effect))),
          (free) => (free ? release(line) : Effect.void)
        )
      })

    // Parked runs move up as slots free. Should one launched again never arrive (its read failed),
    // a line could be left with free slots, no one waiting and runs parked: every few seconds such
    // a line launches one more (one that arrives late only joins the waiting ones). A line with
    // runs in it also reads its limit again then, so that a raised limit admits them without
    // waiting for a newcomer.
    const stranded = Effect.forEach(
      lines,
      ([tenantId, line]) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const expired = now - PROMOTED_TTL_MS
          for (const [runId, at] of line.promoted) if (at < expired) line.promoted.delete(runId)
          if (line.waiting.length === 0 && line.parked.length === 0) return Effect.void
          return Effect.flatMap(limitOf(tenantId), (limit) => {
            line.limit = limit
            return Effect.flatMap(
              admitWaiting(line),
              (handed) => handed === 0 && line.parked.length > 0 && line.waiting.length === 0 && line.inFlight < limit ? unpark(line) : Effect.void
            )
          })
        }),
      { discard: true }
    )
    yield* Effect.forkScoped(Effect.repeat(stranded, Schedule.spaced(STRANDED_CHECK)))

    return { enter, withSlot }
  })

/**
 * Admission of runs on this runner process: at most the tenant's `max_runs_in_flight`
 * activations at once (TENANT_MAX_RUNS_IN_FLIGHT unless its settings say otherwise). A run over the
 * limit waits, still `pending`, in its tenant's own line, so a tenant that starts thousands of runs
 * holds up only its own: every other tenant's runs start as they arrive. Past
 * TENANT_MAX_RUNS_WAITING waiting, a run is parked (its activation ends; only its relaunch is
 * kept) and launched again, in order, as slots free: a waiting run holds its entity, ~90 KB.
 */
export class TenantAdmission extends Context.Tag("TenantAdmission")<TenantAdmission, {
  /** Takes a slot of the tenant for the scope; `onWait` runs once first when none is free. */
  readonly enter: Enter
}>() {
  /** No limit (the kernel's property tests). */
  static readonly none = Layer.succeed(TenantAdmission, { enter: () => Effect.succeed("entered" as const) })

  static readonly layer = Layer.scoped(TenantAdmission, makeTenantLines("max_runs_in_flight", (c) => c.tenantMaxRunsInFlight, true))
}

/** Model calls of a tenant's runs in flight at once on this process (`max_model_calls_in_flight`, else TENANT_MAX_MODEL_CALLS_IN_FLIGHT). */
export class TenantModelCalls extends Context.Tag("TenantModelCalls")<TenantModelCalls, {
  /** `effect` with a slot of the tenant's model calls; `onWait` runs once first when none is free. */
  readonly withSlot: <A, E, R>(tenantId: string, onWait: (limit: number) => Effect.Effect<void>, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>() {
  static readonly layer = Layer.scoped(TenantModelCalls, makeTenantLines("max_model_calls_in_flight", (c) => c.tenantMaxModelCallsInFlight, false))
}

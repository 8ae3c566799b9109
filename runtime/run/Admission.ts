import { SqlClient } from "@effect/sql"
import { Clock, Context, Deferred, Effect, Exit, Layer, Metric, Schedule, Schema, type Scope } from "effect"
import { gaugeAdd, runsQueued } from "../../otel/Metrics.js"
import { AppConfig } from "../../platform/Config.js"
import { decodeRows } from "../../platform/Rows.js"

interface Line {
  inFlight: number
  /** Runs waiting for a slot, first come first served: a slot that frees goes to the first. */
  readonly waiting: Array<Deferred.Deferred<void>>
  /** Runs past the waiting ones, in arrival order: only their relaunch is kept (an id's worth of memory). */
  readonly parked: Array<Parking>
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
      const line: Line = { inFlight: 0, waiting: [], parked: [], promoted: new Map() }
      lines.set(tenantId, line)
      return line
    }

    /** For each slot that frees, one parked run is launched again, to join the waiting ones. */
    const unpark = (line: Line) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const next = line.parked.shift()
        if (next === undefined) return Effect.void
        line.promoted.set(next.runId, now)
        return Effect.zipRight(count(parkedGauge, -1), Effect.asVoid(Effect.forkDaemon(next.relaunch)))
      })

    const release = (line: Line) =>
      Effect.suspend(() => {
        const next = line.waiting.shift()
        if (next !== undefined) return Effect.zipRight(Deferred.succeed(next, undefined), Effect.zipRight(count(waitingGauge, -1), unpark(line)))
        line.inFlight--
        return unpark(line)
      })

    /**
     * Waits (interruptibly) until the tenant has a slot for this run; the slot is then counted. A
     * run that may be parked is, past `maxWaiting` waiting (or behind parked ones: arrival order).
     */
    const take = (line: Line, limit: number, onWait: (limit: number) => Effect.Effect<void>, parking: Parking | undefined) =>
      Effect.gen(function*() {
        const promoted = parking !== undefined && line.promoted.delete(parking.runId)
        if (line.inFlight < limit) {
          line.inFlight++
          return "entered" as const
        }
        if (parking !== undefined && !promoted && (line.waiting.length >= maxWaiting || line.parked.length > 0)) {
          line.parked.push(parking)
          yield* count(parkedGauge, 1)
          yield* onWait(limit)
          return "parked" as const
        }
        // In line before anything that waits: a slot freed meanwhile comes to this run.
        const turn = yield* Deferred.make<void>()
        line.waiting.push(turn)
        yield* count(waitingGauge, 1)
        const leave = Effect.flatMap(Deferred.isDone(turn), (handed) => {
          if (handed) return release(line)
          line.waiting.splice(line.waiting.indexOf(turn), 1)
          return count(waitingGauge, -1)
        })
        // A promoted run said it was queued when it was parked.
        yield* Effect.zipRight(promoted ? Effect.void : onWait(limit), Deferred.await(turn)).pipe(
          Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : leave))
        )
        return "entered" as const
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

    // Parked runs move up as slots free. Should one launched again never arrive (its read failed),
    // a line could be left with free slots, no one waiting and runs parked: every few seconds such
    // a line launches one more (one that arrives late only joins the waiting ones).
    const stranded = Effect.forEach(
      lines,
      ([tenantId, line]) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const expired = now - PROMOTED_TTL_MS
          for (const [runId, at] of line.promoted) if (at < expired) line.promoted.delete(runId)
          return line.parked.length > 0 && line.waiting.length === 0 && line.inFlight < (limits.get(tenantId)?.limit ?? fallback)
            ? unpark(line)
            : Effect.void
        }),
      { discard: true }
    )
    yield* Effect.forkScoped(Effect.repeat(stranded, Schedule.spaced(STRANDED_CHECK)))

    return { enter } satisfies { readonly enter: Enter }
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
export class TenantModelCalls extends Context.Tag("TenantModelCalls")<TenantModelCalls, { readonly enter: Enter }>() {
  static readonly layer = Layer.scoped(TenantModelCalls, makeTenantLines("max_model_calls_in_flight", (c) => c.tenantMaxModelCallsInFlight, false))
}

import { SqlClient } from "@effect/sql"
import { Context, Deferred, Effect, Exit, Layer, Schema, type Scope } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { decodeRows } from "../../platform/Rows.js"

interface Line {
  inFlight: number
  /** Runs waiting for a slot, first come first served: a slot that frees goes to the first. */
  readonly waiting: Array<Deferred.Deferred<void>>
}

/** How long a tenant's limit is read from its settings before it is read again. */
const LIMIT_TTL_MS = 5_000

type Enter = (tenantId: string, onWait: (limit: number) => Effect.Effect<void>) => Effect.Effect<void, never, Scope.Scope>

/**
 * Per-tenant lines on this process: at most the tenant's limit (its `setting`, else the
 * platform's default) hold a slot at once; the others wait in their tenant's own line, first come
 * first served, so one tenant's flood holds up only its own work. A slot is held for a scope.
 */
const makeTenantLines = (setting: "max_runs_in_flight" | "max_model_calls_in_flight", defaultLimit: (config: AppConfig["Type"]) => number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const fallback = defaultLimit(yield* AppConfig)
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
      const line: Line = { inFlight: 0, waiting: [] }
      lines.set(tenantId, line)
      return line
    }

    const release = (line: Line) =>
      Effect.suspend(() => {
        const next = line.waiting.shift()
        if (next !== undefined) return Deferred.succeed(next, undefined)
        line.inFlight--
        return Effect.void
      })

    /** Waits (interruptibly) until the tenant has a slot for this run; the slot is then counted. */
    const take = (line: Line, limit: number, onWait: (limit: number) => Effect.Effect<void>) =>
      Effect.gen(function*() {
        if (line.inFlight < limit) {
          line.inFlight++
          return
        }
        // In line before anything that waits: a slot freed meanwhile comes to this run.
        const turn = yield* Deferred.make<void>()
        line.waiting.push(turn)
        const leave = Effect.flatMap(Deferred.isDone(turn), (handed) => {
          if (handed) return release(line)
          line.waiting.splice(line.waiting.indexOf(turn), 1)
          return Effect.void
        })
        yield* Effect.zipRight(onWait(limit), Deferred.await(turn)).pipe(Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : leave)))
      })

    const enter = (tenantId: string, onWait: (limit: number) => Effect.Effect<void>) =>
      Effect.flatMap(limitOf(tenantId), (limit) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function*() {
            const line = lineOf(tenantId)
            yield* restore(take(line, limit, onWait))
            yield* Effect.addFinalizer(() => release(line))
          })
        ))

    return { enter } satisfies { readonly enter: Enter }
  })

/**
 * Admission of runs on this runner process: at most the tenant's `max_runs_in_flight`
 * activations at once (TENANT_MAX_RUNS_IN_FLIGHT unless its settings say otherwise). A run over the
 * limit waits, still `pending`, in its tenant's own line, so a tenant that starts thousands of runs
 * holds up only its own: every other tenant's runs start as they arrive.
 */
export class TenantAdmission extends Context.Tag("TenantAdmission")<TenantAdmission, {
  /** Takes a slot of the tenant for the scope; `onWait` runs once first when none is free. */
  readonly enter: Enter
}>() {
  /** No limit (the kernel's property tests). */
  static readonly none = Layer.succeed(TenantAdmission, { enter: () => Effect.void })

  static readonly layer = Layer.effect(TenantAdmission, makeTenantLines("max_runs_in_flight", (c) => c.tenantMaxRunsInFlight))
}

/** Model calls of a tenant's runs in flight at once on this process (`max_model_calls_in_flight`, else TENANT_MAX_MODEL_CALLS_IN_FLIGHT). */
export class TenantModelCalls extends Context.Tag("TenantModelCalls")<TenantModelCalls, { readonly enter: Enter }>() {
  static readonly layer = Layer.effect(TenantModelCalls, makeTenantLines("max_model_calls_in_flight", (c) => c.tenantMaxModelCallsInFlight))
}

import { SqlClient } from "@effect/sql"
import { Context, Deferred, Effect, Layer, Schema, type Scope } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { decodeRows } from "../../platform/Rows.js"

interface Line {
  inFlight: number
  /** Runs waiting for a slot, first come first served: a slot that frees goes to the first. */
  readonly waiting: Array<Deferred.Deferred<void>>
}

/** How long a tenant's limit is read from its settings before it is read again. */
const LIMIT_TTL_MS = 5_000

/**
 * Per-tenant admission of runs on this runner process: at most the tenant's `max_runs_in_flight`
 * activations at once (TENANT_MAX_RUNS_IN_FLIGHT unless its settings say otherwise). A run over the
 * limit waits, still `pending`, in its tenant's own line (first come, first served), so a tenant
 * that starts thousands of runs holds up only its own: every other tenant's runs start as they
 * arrive. The slot is held for the scope of the activation.
 */
export class TenantAdmission extends Context.Tag("TenantAdmission")<TenantAdmission, {
  /** Takes a slot of the tenant for the scope; `onWait` runs once first when none is free. */
  readonly enter: (tenantId: string, onWait: (limit: number) => Effect.Effect<void>) => Effect.Effect<void, never, Scope.Scope>
}>() {
  /** No limit (the kernel's property tests). */
  static readonly none = Layer.succeed(TenantAdmission, { enter: () => Effect.void })

  static readonly layer = Layer.effect(
    TenantAdmission,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { tenantMaxRunsInFlight } = yield* AppConfig
      const limits = new Map<string, { readonly limit: number; readonly at: number }>()
      const lines = new Map<string, Line>()

      const limitOf = (tenantId: string) =>
        Effect.suspend(() => {
          const known = limits.get(tenantId)
          if (known !== undefined && Date.now() - known.at < LIMIT_TTL_MS) return Effect.succeed(known.limit)
          return sql`SELECT (settings->>'max_runs_in_flight')::int AS max FROM tenants WHERE id = ${tenantId}`.pipe(
            decodeRows("tenants", Schema.Struct({ max: Schema.NullOr(Schema.Number) })),
            Effect.map((rows) => rows[0]?.max ?? tenantMaxRunsInFlight),
            Effect.orElseSucceed(() => known?.limit ?? tenantMaxRunsInFlight),
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

      const release = (tenantId: string, line: Line) =>
        Effect.suspend(() => {
          const next = line.waiting.shift()
          if (next !== undefined) return Deferred.succeed(next, undefined)
          line.inFlight--
          if (line.inFlight === 0) lines.delete(tenantId)
          return Effect.void
        })

      /** Waits (interruptibly) until the tenant has a slot for this run; the slot is then counted. */
      const take = (tenantId: string, line: Line, limit: number, onWait: (limit: number) => Effect.Effect<void>) =>
        Effect.gen(function*() {
          if (line.inFlight < limit) {
            line.inFlight++
            return
          }
          yield* onWait(limit)
          const turn = yield* Deferred.make<void>()
          line.waiting.push(turn)
          yield* Deferred.await(turn).pipe(Effect.onInterrupt(() =>
            Effect.flatMap(Deferred.isDone(turn), (handed) => {
              if (handed) return release(tenantId, line)
              line.waiting.splice(line.waiting.indexOf(turn), 1)
              return Effect.void
            })
          ))
        })

      const enter = (tenantId: string, onWait: (limit: number) => Effect.Effect<void>) =>
        Effect.flatMap(limitOf(tenantId), (limit) =>
          Effect.uninterruptibleMask((restore) =>
            Effect.gen(function*() {
              const line = lineOf(tenantId)
              yield* restore(take(tenantId, line, limit, onWait))
              yield* Effect.addFinalizer(() => release(tenantId, line))
            })
          ))

      return { enter }
    })
  )
}

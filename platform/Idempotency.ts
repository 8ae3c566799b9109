import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { Conflict, Unprocessable } from "../schemas/Errors.js"
import { decodeRows } from "./Rows.js"

/** Whose keys these are: a caller (its API key, else its user), or a sender such as a webhook's. */
export interface IdempotencyOwner {
  readonly tenantId: string
  readonly userId: string
  readonly apiKeyId?: string | null | undefined
}

export const RETENTION_HOURS = 24

/** JSON with sorted keys, so that equal bodies hash equally whatever their key order. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v)

const hash = (value: unknown) => createHash("sha256").update(canonicalJson(value)).digest("hex")

const Row = Schema.Struct({
  request_hash: Schema.String,
  state: Schema.String,
  response: Schema.Unknown,
  expired: Schema.Boolean,
  abandoned: Schema.Boolean
})
type Row = typeof Row.Type
const keyRows = decodeRows("idempotency_keys", Row)

/**
 * The `Idempotency-Key` store: the first response for a key is replayed for a retry with the
 * same body; the same key with a different body is 422; keys are kept 24 hours.
 */
export class Idempotency extends Effect.Service<Idempotency>()("Idempotency", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const run = <A, I, E, R>(options: {
      readonly principal: IdempotencyOwner
      readonly key: Option.Option<string>
      readonly operation: string
      readonly request: unknown
      readonly response: Schema.Schema<A, I, never>
      readonly effect: Effect.Effect<A, E, R>
    }): Effect.Effect<A, E | Conflict | Unprocessable, R> => {
      if (Option.isNone(options.key)) return options.effect
      const key = options.key.value
      const principalKey = options.principal.apiKeyId ?? options.principal.userId
      const requestHash = hash(options.request)
      const where = sql`tenant_id = ${options.principal.tenantId} AND principal_key = ${principalKey}
        AND operation = ${options.operation} AND idempotency_key = ${key}`

      // Hot path, typed by assertion (not decoded): every write with an Idempotency-Key claims here.
      const claim = sql<{ claimed: boolean }>`
        INSERT INTO idempotency_keys ${
        sql.insert({
          tenant_id: options.principal.tenantId,
          principal_key: principalKey,
          idempotency_key: key,
          operation: options.operation,
          request_hash: requestHash,
          state: "in_progress"
        })
      } ON CONFLICT DO NOTHING RETURNING true AS claimed`.pipe(Effect.map((rows) => rows.length > 0))

      const complete = (value: A) =>
        Schema.encode(options.response)(value).pipe(
          Effect.flatMap((encoded) => sql`UPDATE idempotency_keys SET state = 'completed', response = ${JSON.stringify(encoded)}::jsonb WHERE ${where}`),
          Effect.orDie
        )

      const replay = (row: Row) =>
        row.request_hash !== requestHash
          ? Effect.fail(
            new Unprocessable({
              code: "IDEMPOTENCY_KEY_REUSED",
              message: "This Idempotency-Key was already used with a different request body"
            })
          )
          : Schema.decodeUnknown(options.response)(row.response).pipe(Effect.orDie)

      const existing = sql`
        SELECT request_hash, state, response,
               created_at < now() - make_interval(hours => ${RETENTION_HOURS}) AS expired,
               state <> 'completed' AND created_at < now() - interval '1 minute' AS abandoned
        FROM idempotency_keys WHERE ${where}`.pipe(keyRows, Effect.map((rows) => rows[0]), Effect.orDie)

      // The key is claimed, the work done and the response recorded in one transaction: a second
      // request with the key waits for the first to commit (then replays it) or to roll back (then
      // does the work itself); a request that dies takes its claim with it.
      const attempt = sql.withTransaction(Effect.gen(function*() {
        if (yield* Effect.orDie(claim)) {
          const value = yield* options.effect
          yield* complete(value)
          return { _tag: "done" as const, value }
        }
        const row = yield* existing
        if (row === undefined || row.expired || row.abandoned) return { _tag: "stale" as const }
        if (row.state !== "completed") return { _tag: "stale" as const }
        return { _tag: "done" as const, value: yield* replay(row) }
      })).pipe(Effect.catchTag("SqlError", (e) => Effect.die(e)))

      return Effect.gen(function*() {
        const first = yield* attempt
        if (first._tag === "done") return first.value
        // A claim left by a request that died before this design (or expired): take it over once.
        yield* sql`DELETE FROM idempotency_keys WHERE ${where}`.pipe(Effect.orDie)
        const second = yield* attempt
        if (second._tag === "done") return second.value
        return yield* Effect.fail(
          new Conflict({ code: "IDEMPOTENCY_KEY_IN_PROGRESS", message: "A request with this Idempotency-Key is still being processed" })
        )
      }).pipe(Effect.withSpan("Idempotency.run", { attributes: { operation: options.operation } }))
    }

    const purgeExpired = sql`DELETE FROM idempotency_keys
      WHERE created_at < now() - make_interval(hours => ${RETENTION_HOURS})`.pipe(Effect.orDie, Effect.asVoid)

    return { run, purgeExpired }
  })
}) {}

import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import { decodeRows, JsonObjectOf } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { checkJsonSchema } from "../../runtime/dag/JsonSchema.js"
import { RunModule } from "../../runtime/run/RunModule.js"
import { HITL_ADMINS, requireReader } from "../../schemas/Authorization.js"
import { presentOnly } from "../../schemas/ContractFields.js"
import { type BadRequest, badRequest, conflict, forbidden, notFound } from "../../schemas/Errors.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOf, pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { isRecord } from "../../schemas/Records.js"
import { isAtLeast, type Role, Roles } from "../../schemas/Roles.js"
import { HITL_FIELDS, type HitlRequest } from "../../schemas/Run.js"
import { HitlRow } from "../../schemas/RunRow.js"
import { People } from "../ports/People.js"

/** The row as this service reads it: the one HITL row, its assignee with the fields a node may set. */
const Row = Schema.Struct({ ...HitlRow.fields, assignee: JsonObjectOf<{ user_email?: string; role?: Role; group_id?: string }>() })
type Row = typeof Row.Type

const hitlRows = decodeRows("hitl_requests", Row)

const toRequest = ({ id, ...row }: Row): HitlRequest => ({ request_id: id, ...presentOnly(row, HITL_FIELDS) })

/**
 * A response checked against its request: {type: choice|freetext, value} for ask_human, the
 * legacy {approved, comment} for an approval, {form_data} for a form. What the run sees as
 * `nodes.<id>.hitl` comes back normalised, or a 400 that says what is wrong.
 */
export const checkResponse = (
  request: Pick<Row, "type" | "choices" | "form_schema">,
  response: unknown
): Effect.Effect<Record<string, unknown>, BadRequest> => {
  if (!isRecord(response)) return Effect.fail(badRequest("INVALID_HITL_RESPONSE", "response must be an object"))
  switch (request.type) {
    case "approval": {
      if (typeof response.approved !== "boolean") return Effect.fail(badRequest("INVALID_HITL_RESPONSE", "an approval needs approved: true or false"))
      return Effect.succeed({ approved: response.approved, comment: typeof response.comment === "string" ? response.comment : null })
    }
    case "ask_human": {
      if (response.type !== "choice" && response.type !== "freetext") {
        return Effect.fail(badRequest("INVALID_HITL_RESPONSE", "response.type must be 'choice' or 'freetext'"))
      }
      if (typeof response.value !== "string" || response.value.trim() === "") {
        return Effect.fail(badRequest("INVALID_HITL_RESPONSE", "response.value is missing"))
      }
      if (response.type === "choice" && request.choices !== null && !request.choices.includes(response.value)) {
        return Effect.fail(badRequest("INVALID_HITL_RESPONSE", `'${response.value}' is not one of the offered choices`, [...request.choices]))
      }
      return Effect.succeed({ type: response.type, value: response.value })
    }
    case "form": {
      if (!isRecord(response.form_data)) return Effect.fail(badRequest("INVALID_HITL_RESPONSE", "a form needs form_data (an object)"))
      const problems = request.form_schema === null ? [] : checkJsonSchema(request.form_schema, response.form_data)
      if (problems.length > 0) {
        return Effect.fail(badRequest("INVALID_HITL_RESPONSE", "form_data does not match the form", problems))
      }
      return Effect.succeed({ form_data: response.form_data })
    }
  }
}

/** HITL requests: the ones a caller may act on, answers that resume the run on its version. */
export class Hitl extends Effect.Service<Hitl>()("Hitl", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const modules = yield* RunModule

    const people = yield* People
    const groupsOf = people.groupsOf

    const mayAct = (principal: Principal, row: Row) =>
      Effect.gen(function*() {
        if (HITL_ADMINS.includes(principal.role)) return true
        const a = row.assignee
        if (a.user_email !== undefined) return a.user_email.toLowerCase() === principal.email.toLowerCase()
        if (a.role !== undefined) return isAtLeast(principal.role, a.role)
        if (a.group_id !== undefined) return (yield* groupsOf(principal)).includes(a.group_id)
        return false
      })

    const find = (principal: Principal, id: string) =>
      sql`SELECT * FROM hitl_requests WHERE tenant_id = ${principal.tenantId} AND id = ${id}`.pipe(hitlRows).pipe(
        Effect.orDie,
        Effect.flatMap((rows) => (rows[0] === undefined ? Effect.fail(notFound("HITL request")) : Effect.succeed(rows[0]))),
        Effect.tap(() => requireReader(principal))
      )

    const pending = (principal: Principal, params: PageParams) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const groups = yield* groupsOf(principal)
        const roles = Roles.filter((r) => isAtLeast(principal.role, r))
        const where = sql.and([
          sql`tenant_id = ${principal.tenantId}`,
          sql`(status = 'pending' OR (status = 'claimed' AND claimed_by = ${principal.userId}))`,
          HITL_ADMINS.includes(principal.role)
            ? sql`true`
            : sql`(lower(assignee->>'user_email') = lower(${principal.email})
                OR assignee->>'role' IN ${sql.in(roles)}
                ${groups.length > 0 ? sql`OR assignee->>'group_id' IN ${sql.in(groups)}` : sql``})`
        ])
        const rows = yield* sql`SELECT * FROM hitl_requests WHERE ${where} ORDER BY created_at, id
          LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(hitlRows).pipe(Effect.orDie)
        const [c] = yield* sql`SELECT count(*)::int AS total FROM hitl_requests WHERE ${where}`.pipe(
          decodeRows("hitl_requests", Schema.Struct({ total: Schema.Number }))
        ).pipe(Effect.orDie)
        return pageOf(params, rows.map(toRequest), c?.total ?? 0)
      })

    const get = (principal: Principal, id: string) => find(principal, id).pipe(Effect.map(toRequest))

    /**
     * Closes the request and asks its run to go on, in one transaction; then wakes the run, which
     * resumes on the version it started on (approved or answered: the node runs; rejected or
     * declined: the node is skipped).
     */
    const close = (update: Effect.Effect<ReadonlyArray<Row>, SqlError>) =>
      Effect.gen(function*() {
        const updated = yield* sql.withTransaction(Effect.gen(function*() {
          const [closed] = yield* update
          if (closed !== undefined) yield* modules.requestWake(closed.run_id)
          return closed
        })).pipe(Effect.orDie)
        if (updated !== undefined) yield* modules.wake(updated.run_id)
        return updated
      })

    const open = (principal: Principal, row: Row) =>
      Effect.gen(function*() {
        if (row.status === "completed" || row.status === "cancelled") {
          return yield* conflict("HITL_CLOSED", `This request is already ${row.status}`)
        }
        if (row.status === "claimed" && row.claimed_by !== principal.userId && !HITL_ADMINS.includes(principal.role)) {
          return yield* conflict("HITL_CLAIMED", "Another person has claimed this request")
        }
        if (!(yield* mayAct(principal, row))) return yield* forbidden("You are not an assignee of this request")
      })

    const respond = (principal: Principal, id: string, response: unknown) =>
      Effect.gen(function*() {
        const row = yield* find(principal, id)
        yield* open(principal, row)
        const normalised = yield* checkResponse(row, response)
        const updated = yield* close(sql`UPDATE hitl_requests SET status = 'completed',
            response = ${JSON.stringify(normalised)}::jsonb, responded_by = ${principal.userId}, responded_at = now()
          WHERE id = ${row.id} AND status IN ('pending', 'claimed') RETURNING *`.pipe(hitlRows))
        if (updated === undefined) return yield* conflict("HITL_CLOSED", "This request was answered or cancelled meanwhile")
        return toRequest(updated)
      })

    const claim = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        const row = yield* find(principal, id)
        yield* open(principal, row)
        const [updated] = yield* sql`UPDATE hitl_requests SET status = 'claimed', claimed_by = ${principal.userId}
          WHERE id = ${row.id} AND (status = 'pending' OR (status = 'claimed' AND claimed_by = ${principal.userId}))
          RETURNING *`.pipe(hitlRows).pipe(Effect.orDie)
        if (updated === undefined) return yield* conflict("HITL_CLAIMED", "This request was claimed or closed meanwhile")
        return toRequest(updated)
      })

    /** Declining to answer: the node is skipped (as for a rejected approval) and the run goes on. */
    const cancel = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        const row = yield* find(principal, id)
        yield* open(principal, row)
        const updated = yield* close(sql`UPDATE hitl_requests SET status = 'cancelled', responded_by = ${principal.userId},
            responded_at = now() WHERE id = ${row.id} AND status IN ('pending', 'claimed') RETURNING *`.pipe(hitlRows))
        if (updated === undefined) return yield* conflict("HITL_CLOSED", "This request was answered or cancelled meanwhile")
        return toRequest(updated)
      })

    return traced("Hitl", { pending, get, respond, claim, cancel })
  })
}) {}

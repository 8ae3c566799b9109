import type { SqlClient, Statement } from "@effect/sql"
import { Effect } from "effect"
import type { TicketListParams } from "../../schemas/Ticketing.js"
import { cursorKey, cursorOf, offsetOf, SORT_COLUMN, SORTABLE_BY, sortRefused, ticketRows, ticketSelect, toTicket } from "./TicketRows.js"

/**
 * Pages of the built-in desk's tickets (a queue's, or a requester's across queues): filters,
 * sort, and the opaque cursor of the list endpoints.
 */
export const ticketPages = (sql: SqlClient.SqlClient) => {
  /** Built-in desk tickets in scope, filtered and sorted, `limit` of them from `offset`. */
  const rows = (scope: ReadonlyArray<Statement.Fragment>, p: typeof TicketListParams.Type, offset: number, limit: number) =>
    Effect.gen(function*() {
      const where = sql.and([
        ...scope,
        sql`t.deleted_at IS NULL`,
        ...(p.status !== undefined ? [sql`t.status = ${p.status}`] : []),
        ...(p.priority !== undefined ? [sql`t.priority = ${p.priority}`] : []),
        ...(p.assignee_email !== undefined ? [sql`t.assignee_email = ${p.assignee_email.toLowerCase()}`] : []),
        ...(p.requester_email !== undefined ? [sql`t.requester_email = ${p.requester_email.toLowerCase()}`] : []),
        ...(p.label !== undefined ? [sql`${p.label} = ANY(t.labels)`] : []),
        ...(p.q !== undefined
          ? [sql`(t.title ILIKE ${`%${p.q.replace(/[\\%_]/g, "\\$&")}%`} OR t.description ILIKE ${`%${p.q.replace(/[\\%_]/g, "\\$&")}%`})`]
          : []),
        ...(p.created_after !== undefined ? [sql`t.created_at >= ${p.created_after}`] : []),
        ...(p.created_before !== undefined ? [sql`t.created_at < ${p.created_before}`] : [])
      ])
      const direction = p.order === "desc" ? "DESC" : "ASC"
      const orderBy = p.sort === undefined ? "t.created_at DESC, t.number DESC" : `t.${SORT_COLUMN[p.sort]} ${direction}, t.number ${direction}`
      return yield* sql`${sql.unsafe(ticketSelect)} WHERE ${where} ORDER BY ${sql.unsafe(orderBy)} LIMIT ${limit} OFFSET ${offset}`.pipe(
        ticketRows,
        Effect.orDie
      )
    })

  const page = (scope: ReadonlyArray<Statement.Fragment>, p: typeof TicketListParams.Type, groupId: string | undefined, sortable: boolean) =>
    Effect.gen(function*() {
      if (p.sort !== undefined && (!sortable || !(SORTABLE_BY as ReadonlyArray<string>).includes(p.sort))) return yield* sortRefused(SORTABLE_BY)
      const key = cursorKey(groupId, { ...p })
      const offset = yield* offsetOf(key, p.cursor)
      const size = Math.min(p.page_size ?? 25, 100)
      const found = yield* rows(scope, p, offset, size + 1)
      return {
        items: found.slice(0, size).map(toTicket),
        next_cursor: found.length > size ? cursorOf(key, offset + size) : null,
        ...(sortable ? { sortable_by: [...SORTABLE_BY] } : {})
      }
    })

  return { page, rows }
}

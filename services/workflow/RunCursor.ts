import { Effect } from "effect"
import { badRequest } from "../../schemas/Errors.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/

export type HistoryOrder = "newest" | "oldest"

/**
 * The run history's cursor: the order it pages in and the last run of a page (its created_at as
 * PostgreSQL wrote it, to the microsecond, and id), opaque to clients.
 */
export const encodeRunCursor = (order: HistoryOrder, createdAt: string, id: string) => Buffer.from(`${order}|${createdAt}|${id}`).toString("base64url")

export const decodeRunCursor = (cursor: string, order: HistoryOrder) => {
  const [issuedFor, createdAt, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|")
  if (issuedFor !== undefined && issuedFor !== order && (issuedFor === "newest" || issuedFor === "oldest")) {
    return Effect.fail(
      badRequest("INVALID_PAGE_TOKEN", `This cursor pages ${issuedFor} first; ask with order=${issuedFor} or start again`, [{
        path: ["cursor"],
        message: "issued for another order"
      }])
    )
  }
  return issuedFor !== order || createdAt === undefined || !TIMESTAMP.test(createdAt) || id === undefined || !UUID.test(id)
    ? Effect.fail(badRequest("INVALID_PAGE_TOKEN", "This cursor was not issued by the run history", [{ path: ["cursor"], message: "unknown cursor" }]))
    : Effect.succeed({ createdAt, id })
}

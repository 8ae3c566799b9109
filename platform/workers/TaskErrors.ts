import { ErrorCatalogue, type ErrorCode, isErrorCode } from "../../schemas/ErrorCodes.js"
import { BadRequest, PayloadTooLarge, TooManyRequests, Unprocessable } from "../../schemas/Errors.js"
import type { WorkerTaskFailed } from "./WorkerPool.js"

/**
 * How a task that failed answers the request: a refusal with its own code (at that code's
 * status), a task that could not read the input as `fallback`, a limit as 422
 * `INPUT_LIMIT_EXCEEDED`, a tenant with too many tasks as 429 `WORKERS_BUSY`. `field` names the
 * request field the input came from.
 */
export const taskError = (failure: WorkerTaskFailed, fallback: ErrorCode, field?: string) => {
  const details = field === undefined ? undefined : [{ path: [field], message: failure.message }]
  const code = failure.reason === "refused" && isErrorCode(failure.code)
    ? failure.code
    : failure.reason === "time" || failure.reason === "memory"
    ? "INPUT_LIMIT_EXCEEDED"
    : fallback
  if (failure.reason === "busy") return new TooManyRequests({ code: "WORKERS_BUSY", message: failure.message, retry_after_seconds: 5 })
  const body = { code, message: failure.message, ...(details !== undefined ? { details } : {}) }
  switch (ErrorCatalogue[code][0]) {
    case 413:
      return new PayloadTooLarge(body)
    case 422:
      return new Unprocessable(body)
    default:
      return new BadRequest(body)
  }
}

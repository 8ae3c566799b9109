import { FiberRef } from "effect"

/** The request id of the HTTP request being served (also sent as `X-Request-Id`). */
export const CurrentRequestId = FiberRef.unsafeMake<string | undefined>(undefined)

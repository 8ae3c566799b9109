import { FiberRef } from "effect"

/** The request id of the HTTP request being served (also sent as `X-Request-Id`). */
export const CurrentRequestId = FiberRef.unsafeMake<string | undefined>(undefined)

/** The address of the client being served (the socket's peer, or X-Forwarded-For's first hop with TRUST_PROXY). */
export const CurrentClientAddress = FiberRef.unsafeMake<string | undefined>(undefined)

import { Effect, FiberRef } from "effect"

/** The HTTP request being served: one fiber ref, set once on the request's own fiber. */
export interface RequestInfo {
  /** Also sent back as `X-Request-Id`. */
  readonly requestId: string
  /** The socket's peer, or X-Forwarded-For's first hop with TRUST_PROXY. */
  readonly clientAddress: string | undefined
}

export const CurrentRequest = FiberRef.unsafeMake<RequestInfo | undefined>(undefined)

/** The request id of the HTTP request being served (none outside a request). */
export const CurrentRequestId = Effect.map(FiberRef.get(CurrentRequest), (r) => r?.requestId)

/** The address of the client being served, if known. */
export const CurrentClientAddress = Effect.map(FiberRef.get(CurrentRequest), (r) => r?.clientAddress)

import { useEffect, useState } from "react"
import { ApiError } from "../api/client"
import { ErrorState } from "./States"

/** Seconds left of a wait, counted down in place; 0 without one. */
export const useCountdown = (seconds: number | undefined) => {
  const [left, setLeft] = useState(seconds ?? 0)
  useEffect(() => {
    setLeft(seconds ?? 0)
    if (seconds === undefined) return
    const timer = setInterval(() => setLeft((s) => Math.max(0, s - 1)), 1000)
    return () => clearInterval(timer)
  }, [seconds])
  return left
}

/** How long a refusal (429 with Retry-After) asks to wait; undefined for any other error. */
export const retryAfterOf = (error: unknown): number | undefined => error instanceof ApiError && error.status === 429 ? error.retryAfterSeconds ?? 1 : undefined

const inSeconds = (left: number) => `${left} second${left === 1 ? "" : "s"}`

/**
 * An action's error: a refusal to start now (the workspace's start rate, or its share while the
 * platform is busy) as a notice that counts down to when it can be tried again; anything else as
 * an error.
 */
export const TryLater = ({ error, left, refused = "Not started", kept }: {
  readonly error: unknown
  readonly left: number
  /** What did not happen, as the notice begins. */
  readonly refused?: string
  /** What the user need not do again. */
  readonly kept?: string
}) => {
  if (retryAfterOf(error) === undefined) return <ErrorState error={error} />
  const message = error instanceof Error ? error.message : ""
  return (
    <p className="notice" role="status">
      {`${refused}: ${message.endsWith(".") ? message : `${message}.`} `}
      {kept !== undefined && `${kept} `}
      {left > 0 ? `You can try again in ${inSeconds(left)}.` : "You can try again now."}
    </p>
  )
}

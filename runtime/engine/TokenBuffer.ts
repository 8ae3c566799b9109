import { Effect } from "effect"
import { randomUUID } from "node:crypto"

const FLUSH_CHARS = 64
const FLUSH_MS = 100

/**
 * Streamed text is stored and sent in small batches rather than one event per model delta.
 * Each execution attempt has its own key space, so a re-run after a crash adds new token
 * events instead of colliding with the dead attempt's.
 */
export const TokenBuffer = {
  make: (emit: (delta: string, n: number, attempt: string) => Effect.Effect<void>) =>
    Effect.sync(() => {
      const attempt = randomUUID()
      let buffer = ""
      let n = 0
      let last = Date.now()
      const flush = Effect.suspend(() => {
        if (buffer.length === 0) return Effect.void
        const delta = buffer
        buffer = ""
        last = Date.now()
        return emit(delta, n++, attempt)
      })
      const push = (delta: string) =>
        Effect.suspend(() => {
          buffer += delta
          return buffer.length >= FLUSH_CHARS || Date.now() - last >= FLUSH_MS ? flush : Effect.void
        })
      return { push, flush }
    })
}

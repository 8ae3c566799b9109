import type { ServerResponse } from "node:http"

/**
 * A hostile peer's answer: `piece()` written into `res` until `total` characters went out or the
 * client hung up, honouring backpressure; `onSent` counts what was written.
 */
export const flood = async (res: ServerResponse, total: number, piece: () => string, onSent: (chars: number) => void) => {
  let closed = false
  res.on("close", () => {
    closed = true
  })
  let written = 0
  while (!closed && written < total) {
    const chunk = piece()
    written += chunk.length
    onSent(chunk.length)
    if (!res.write(chunk)) {
      // Drained or closed: the other listener goes, so that they do not pile up on the response.
      await new Promise<void>((r) => {
        const done = () => {
          res.off("drain", done).off("close", done)
          r()
        }
        res.once("drain", done).once("close", done)
      })
    }
  }
  if (!closed) res.end()
}

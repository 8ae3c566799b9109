import type { Response } from "undici"

/** What a token endpoint may answer: tokens are a few kilobytes. */
export const MAX_TOKEN_ANSWER_BYTES = 1024 * 1024

/**
 * A peer's JSON answer read at most `maxBytes` far: past that the rest is not read (the body is
 * cancelled) and it fails, so that a peer sending 50 MB costs no more than the cap. An empty or
 * unparsable body is `undefined`.
 */
export const cappedJson = async (response: Response, maxBytes: number): Promise<unknown> => {
  const reader = response.body?.getReader()
  if (reader === undefined) return undefined
  const parts: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      throw new Error(`the answer is larger than ${maxBytes} bytes`)
    }
    parts.push(value)
  }
  return parsedOrUndefined(Buffer.concat(parts).toString("utf8"))
}

const parsedOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

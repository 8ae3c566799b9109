import type { Response } from "undici"

/** What a token endpoint may answer: tokens are a few kilobytes. */
export const MAX_TOKEN_ANSWER_BYTES = 1024 * 1024

/** Thrown by `cappedText` when the answer is over its cap. */
export class AnswerTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`)
  }
}

/**
 * A peer's answer read at most `maxBytes` far: past that the rest is not read (the body is
 * cancelled) and it fails with `AnswerTooLarge`, so that a peer sending 50 MB costs no more than
 * the cap. A declared `Content-Length` over the cap fails before anything is read.
 */
export const cappedText = async (response: Response, maxBytes: number): Promise<string> => {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN)
  if (declared > maxBytes) {
    await response.body?.cancel()
    throw new AnswerTooLarge(maxBytes)
  }
  const reader = response.body?.getReader()
  if (reader === undefined) return ""
  const parts: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      throw new AnswerTooLarge(maxBytes)
    }
    parts.push(value)
  }
  return Buffer.concat(parts).toString("utf8")
}

/** `cappedText` as JSON: an empty or unparsable body is `undefined`. */
export const cappedJson = async (response: Response, maxBytes: number): Promise<unknown> => parsedOrUndefined(await cappedText(response, maxBytes))

const parsedOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The answer with its body read within `maxBytes` (`AnswerTooLarge` past it), as a WHATWG Response. */
export const cappedResponse = async (response: Response, maxBytes: number): Promise<globalThis.Response> => {
  const text = await cappedText(response, maxBytes)
  const headers = new Headers()
  response.headers.forEach((value, key) => headers.set(key, value))
  return new globalThis.Response(response.status === 204 || response.status === 304 ? null : text, {
    status: response.status,
    statusText: response.statusText,
    headers
  })
}

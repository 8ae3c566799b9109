/** What a JSON body holds that the API refuses before decoding it. */
export type JsonProblem = "too_deep" | "nul"

/**
 * One pass over a JSON text: nesting deeper than `maxDepth` (decoding and error formatting
 * recurse, so a body nested thousands deep would overflow the stack), or a NUL character in a
 * string (PostgreSQL cannot store it). Strings are skipped with their escapes; malformed JSON is
 * left to the decoder.
 */
export const jsonProblem = (text: string, maxDepth: number): JsonProblem | undefined => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) {
        if (text.charCodeAt(i + 1) === 0x75 && text.startsWith("0000", i + 2)) return "nul"
        i += 1
      } else if (c === 0x22) {
        inString = false
      } else if (c === 0) {
        return "nul"
      }
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x7b || c === 0x5b) {
      depth += 1
      if (depth > maxDepth) return "too_deep"
    } else if (c === 0x7d || c === 0x5d) {
      depth -= 1
    }
  }
  return undefined
}

/** A NUL anywhere in the path or query (`%00`), which no parameter may hold. */
export const urlHasNul = (url: string) => /%00/.test(url) || url.includes("\0")

const MAX_ECHO = 200

/** Text echoed back in an error is cut to a bounded length, saying how much was left out. */
export const capEcho = (text: string, max = MAX_ECHO): string => text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`

/**
 * An error message made safe to send: quoted values inside it are cut to 200 characters, and the
 * whole message to 1,000, so a 9 MiB field never comes back as a 37 MB error.
 */
export const capMessage = (message: string): string => {
  const head = message.length > 20_000 ? message.slice(0, 20_000) : message
  return capEcho(head.replace(/"(?:[^"\\]|\\.){200,}"/g, (quoted) => `"${capEcho(quoted.slice(1, -1))}"`), 1000)
}

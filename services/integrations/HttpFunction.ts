import { Effect, Either } from "effect"
import { request } from "undici"
import type { Dispatcher } from "undici"
import { isDeadlinePassed, withinDeadline } from "../../platform/outbound/Deadline.js"
import type { IntegrationAuth } from "../../schemas/Integration.js"
import { isRecord } from "../../schemas/Records.js"

export interface HttpCall {
  readonly baseUrl: string
  readonly method: string
  readonly path: string
  readonly input: Record<string, unknown>
  readonly auth: IntegrationAuth
  /** The workspace's credentials for this install (api_key, token, username/password). */
  readonly credentials: Record<string, unknown>
  /** The calling user's OAuth access token, for `oauth2` entries. */
  readonly accessToken: string | undefined
  readonly timeoutMs: number
  readonly maxResponseBytes: number
  readonly dispatcher: Dispatcher
}

export interface CallOutcome {
  readonly ok: boolean
  readonly httpStatus: number | null
  readonly output: unknown
  readonly error?: string | undefined
}

const text = (u: unknown) => (u === undefined || u === null ? undefined : String(u))

/** Path parameters from the input; the rest goes to the query (GET, DELETE) or the JSON body. */
const place = (path: string, method: string, input: Record<string, unknown>) => {
  const rest: Record<string, unknown> = { ...input }
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = rest[name]
    delete rest[name]
    return encodeURIComponent(String(value ?? ""))
  })
  const inQuery = method === "GET" || method === "DELETE"
  return { path: filled, query: inQuery ? rest : {}, body: inQuery ? undefined : rest }
}

/**
 * Calls one HTTP operation: the URL built from the entry's base_url and the function's path
 * template, the credentials injected as the entry's auth says, through the outbound guard's
 * dispatcher (every connection and redirect checked), within the time and size limits.
 */
export const callHttp = (call: HttpCall): Effect.Effect<CallOutcome> =>
  Effect.gen(function*() {
    const placed = place(call.path, call.method, call.input)
    const url = new URL(call.baseUrl.replace(/\/+$/, "") + placed.path)
    for (const [k, v] of Object.entries(placed.query)) {
      if (v !== undefined && v !== null) url.searchParams.set(k, typeof v === "string" ? v : JSON.stringify(v))
    }
    const headers: Record<string, string> = { accept: "application/json" }
    const auth = call.auth
    const c = call.credentials
    switch (auth.type) {
      case "api_key": {
        const key = text(c.api_key ?? c.key ?? c.value)
        if (key === undefined) return { ok: false, httpStatus: null, output: null, error: "No api_key credential is stored for this integration" }
        if (auth.in === "query") url.searchParams.set(auth.name, key)
        else headers[auth.name.toLowerCase()] = key
        break
      }
      case "bearer": {
        const token = text(c.token ?? c.access_token ?? c.bearer_token)
        if (token === undefined) return { ok: false, httpStatus: null, output: null, error: "No token credential is stored for this integration" }
        headers.authorization = `Bearer ${token}`
        break
      }
      case "basic": {
        if (c.username === undefined) {
          return { ok: false, httpStatus: null, output: null, error: "No username/password credential is stored for this integration" }
        }
        headers.authorization = `Basic ${Buffer.from(`${text(c.username) ?? ""}:${text(c.password) ?? ""}`).toString("base64")}`
        break
      }
      case "oauth2": {
        if (call.accessToken === undefined) {
          return { ok: false, httpStatus: null, output: null, error: "Connect your account to this integration first (no OAuth connection)" }
        }
        headers.authorization = `Bearer ${call.accessToken}`
        break
      }
      case "none":
        break
    }
    if (placed.body !== undefined) {
      headers["content-type"] = "application/json"
    }
    return yield* withinDeadline(call.timeoutMs, async (signal) => {
      const response = await request(url, {
        method: call.method,
        headers,
        ...(placed.body !== undefined ? { body: JSON.stringify(placed.body) } : {}),
        dispatcher: call.dispatcher,
        signal
      })
      const chunks: Array<Buffer> = []
      let size = 0
      for await (const chunk of response.body) {
        size += (chunk as Buffer).byteLength
        if (size > call.maxResponseBytes) {
          response.body.destroy()
          return { ok: false, httpStatus: response.statusCode, output: null, error: `The response is over ${call.maxResponseBytes} bytes` }
        }
        chunks.push(chunk as Buffer)
      }
      const raw = Buffer.concat(chunks).toString("utf8")
      const json = String(response.headers["content-type"] ?? "").includes("json")
      const output = json && raw !== ""
        ? Either.getOrElse(Either.try(() => JSON.parse(raw) as unknown), () => raw)
        : raw
      const ok = response.statusCode >= 200 && response.statusCode < 300
      return {
        ok,
        httpStatus: response.statusCode,
        output,
        ...(ok ? {} : { error: `HTTP ${response.statusCode}: ${(isRecord(output) ? JSON.stringify(output) : raw).slice(0, 300)}` })
      }
    }).pipe(
      Effect.catchAll((error) => {
        const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
        return Effect.succeed<CallOutcome>({
          ok: false,
          httpStatus: null,
          output: null,
          error: isDeadlinePassed(error)
            ? `No answer within ${call.timeoutMs / 1000} s`
            : `The call failed: ${error instanceof Error ? error.message : String(error)}${cause}`
        })
      })
    )
  })

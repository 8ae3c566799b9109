import { Effect, Either } from "effect"
import { request } from "undici"
import type { Dispatcher } from "undici"
import { isDeadlinePassed, withinDeadline } from "../../../platform/outbound/Deadline.js"
import { refusalIn } from "../../../platform/outbound/OutboundGuard.js"
import { FailedDependency, Forbidden, NotFound, ServiceUnavailable, type Unprocessable, unprocessable } from "../../../schemas/Errors.js"

/** What a call to Zendesk may end in, as the ticketing document's errors. */
export type ZendeskFailure = Forbidden | FailedDependency | ServiceUnavailable | NotFound | Unprocessable

const MAX_RESPONSE_BYTES = 8 * 1024 * 1024
const DEFAULT_RETRY_AFTER = 5

export interface ZendeskCredentials {
  readonly baseUrl: string
  readonly email: string
  readonly apiToken: string
}

const text = (u: unknown) => (typeof u === "string" && u.trim() !== "" ? u.trim() : undefined)

const misconfigured = (why: string) =>
  new FailedDependency({ code: "CONNECTION_UNAVAILABLE", message: `The queue's Zendesk connection is misconfigured: ${why}` })

export const unavailable = (why: string, retryAfter = DEFAULT_RETRY_AFTER) =>
  new ServiceUnavailable({ code: "BACKEND_UNAVAILABLE", message: `Zendesk is unavailable: ${why}; retry later`, retry_after_seconds: retryAfter })

/** `{subdomain or base_url, email, api_token}` (00-decisions section 10), or why not. */
export const credentialsOf = (c: Record<string, unknown>): Either.Either<ZendeskCredentials, FailedDependency> => {
  const subdomain = text(c.subdomain)
  const base = text(c.base_url) ?? (subdomain !== undefined ? `https://${subdomain}.zendesk.com` : undefined)
  const email = text(c.email)
  const apiToken = text(c.api_token)
  if (base === undefined || !URL.canParse(base)) return Either.left(misconfigured("credentials need subdomain or base_url"))
  if (email === undefined || apiToken === undefined) return Either.left(misconfigured("credentials need email and api_token"))
  return Either.right({ baseUrl: base.replace(/\/+$/, ""), email, apiToken })
}

export interface ZendeskResponse {
  readonly status: number
  readonly body: unknown
}

const retryAfterOf = (header: string | Array<string> | undefined) => {
  const value = Number(Array.isArray(header) ? header[0] : header)
  return Number.isFinite(value) && value > 0 ? Math.ceil(value) : DEFAULT_RETRY_AFTER
}

const descriptionOf = (body: unknown) => {
  if (typeof body !== "object" || body === null) return String(body).slice(0, 300)
  const b = body as Record<string, unknown>
  const details = b.details !== undefined ? ` ${JSON.stringify(b.details).slice(0, 300)}` : ""
  return `${String(b.description ?? b.error ?? "refused")}${details}`
}

/**
 * One Support API v2 call with the connection's token (`{email}/token:{api_token}`), through the
 * outbound guard's dispatcher, within the time limit and a size cap. Answers are mapped to the
 * document's errors: 401 and a refused address are a misconfigured connection (424), 403
 * CONNECTION_FORBIDDEN, 404 not found, 400/422 the values refused (422), 429, 5xx, timeouts and
 * unreachable hosts 503 with Retry-After.
 */
export const callZendesk = (
  creds: ZendeskCredentials,
  dispatcher: Dispatcher,
  timeoutMs: number,
  call: { method: Dispatcher.HttpMethod; path: string; query?: Record<string, string>; body?: unknown; headers?: Record<string, string> }
): Effect.Effect<ZendeskResponse, ZendeskFailure> =>
  Effect.gen(function*() {
    const url = new URL(creds.baseUrl + call.path)
    for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, v)
    const headers: Record<string, string> = {
      accept: "application/json",
      authorization: `Basic ${Buffer.from(`${creds.email}/token:${creds.apiToken}`).toString("base64")}`,
      ...call.headers,
      ...(call.body !== undefined ? { "content-type": "application/json" } : {})
    }
    const response = yield* withinDeadline(timeoutMs, async (signal) => {
      const r = await request(url, {
        method: call.method,
        headers,
        ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
        dispatcher,
        signal
      })
      const chunks: Array<Buffer> = []
      let size = 0
      for await (const chunk of r.body) {
        size += (chunk as Buffer).byteLength
        if (size > MAX_RESPONSE_BYTES) {
          r.body.destroy()
          return { status: -1, headers: r.headers, raw: "" }
        }
        chunks.push(chunk as Buffer)
      }
      return { status: r.statusCode, headers: r.headers, raw: Buffer.concat(chunks).toString("utf8") }
    }).pipe(
      Effect.mapError((error): ZendeskFailure => {
        const refused = refusalIn(error)
        if (refused !== undefined) return misconfigured(`its address is refused (${refused.reason})`)
        return unavailable(
          isDeadlinePassed(error)
            ? `no answer within ${timeoutMs / 1000} s`
            : `the connection failed (${error instanceof Error ? error.message : String(error)})`
        )
      })
    )
    if (response.status === -1) return yield* unavailable(`the answer is over ${MAX_RESPONSE_BYTES} bytes`)
    const json = response.raw === "" ? Either.right(null) : Either.try(() => JSON.parse(response.raw) as unknown)
    const body = Either.getOrElse(json, () => response.raw)
    const status = response.status
    if (status >= 200 && status < 300) {
      if (Either.isLeft(json)) return yield* misconfigured("the answer is not JSON (is base_url a Zendesk instance?)")
      return { status, body }
    }
    if (status === 401) return yield* misconfigured("Zendesk refuses its credentials (401)")
    if (status === 403) {
      return yield* new Forbidden({ code: "CONNECTION_FORBIDDEN", message: `Zendesk refuses this request with the queue's connection: ${descriptionOf(body)}` })
    }
    if (status === 404) {
      return yield* new NotFound({ code: "NOT_FOUND", message: "Not found in Zendesk" })
    }
    if (status === 400 || status === 422) return yield* unprocessable("BACKEND_REJECTED", `Zendesk refuses the values: ${descriptionOf(body)}`)
    if (status === 429 || status >= 500) return yield* unavailable(`HTTP ${status}`, retryAfterOf(response.headers["retry-after"]))
    return yield* misconfigured(`unexpected HTTP ${status}`)
  }).pipe(Effect.withSpan("Zendesk.call", { attributes: { "http.method": call.method, "zendesk.path": call.path } }))

import { Effect } from "effect"
import { TestPlatform } from "./TestPlatform.js"

/** A JSON answer as the tests read it: any shape, each field checked by the assertion that reads it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one place: JSON of any shape, read field by field
export type Json = any

export interface HttpResult<B = Json> {
  readonly status: number
  readonly body: B
  readonly headers: Headers
  readonly text: string
}

export interface RequestOptions {
  readonly token?: string | undefined
  readonly apiKey?: string | undefined
  readonly body?: unknown
  readonly rawBody?: string | undefined
  readonly headers?: Record<string, string> | undefined
  readonly redirect?: "manual" | "follow"
}

export const request = (baseUrl: string, method: string, path: string, options: RequestOptions = {}) =>
  Effect.promise(async (): Promise<HttpResult> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    if (options.apiKey !== undefined) headers["x-api-key"] = options.apiKey
    let body: string | undefined = options.rawBody
    if (options.body !== undefined) {
      headers["content-type"] = "application/json"
      body = JSON.stringify(options.body)
    }
    const response = await fetch(baseUrl + path, { method, headers, body: body ?? null, redirect: options.redirect ?? "manual" })
    const text = await response.text()
    let parsed: unknown = undefined
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    return { status: response.status, body: parsed, headers: response.headers, text }
  })

/** A request against the suite's server. */
export const http = (method: string, path: string, options: RequestOptions = {}) =>
  Effect.flatMap(TestPlatform, (platform) => request(platform.baseUrl, method, path, options))

export const login = (email: string, password: string, tenant?: string) =>
  http("POST", "/api/v1/auth/login", { body: tenant === undefined ? { email, password } : { email, password, tenant } })

export const loginToken = (email: string, password: string, tenant?: string) =>
  login(email, password, tenant).pipe(
    Effect.flatMap((r) =>
      r.status === 200 && typeof r.body?.access_token === "string"
        ? Effect.succeed(r.body.access_token as string)
        : Effect.dieMessage(`login failed for ${email}: ${r.status} ${r.text}`)
    )
  )

import { Cookies } from "@effect/platform"
import { randomBytes, timingSafeEqual } from "node:crypto"
import type { AppConfigShape } from "./Config.js"

/** Cookie names of the browser flow (00-decisions section 8). */
export const ACCESS_COOKIE = "access_token"
export const REFRESH_COOKIE = "refresh_token"
export const CSRF_COOKIE = "csrf_token"
export const CSRF_HEADER = "x-csrf-token"
export const REFRESH_PATH = "/api/v1/auth/refresh"

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])
export const isUnsafeMethod = (method: string) => !SAFE_METHODS.has(method.toUpperCase())

type Settings = Pick<AppConfigShape, "publicBaseUrl" | "corsOrigins" | "accessTokenTtlSeconds" | "refreshTokenTtlSeconds">

const secure = (config: Settings) => config.publicBaseUrl.startsWith("https:")

/** Cookies set when a sign-in or refresh hands out tokens. */
export const sessionCookies = (
  config: Settings,
  tokens: { readonly access_token: string; readonly refresh_token?: string | undefined },
  existingCsrf: string | undefined
) => {
  const base = { httpOnly: true, sameSite: "lax" as const, secure: secure(config) }
  const cookies: Array<[string, string, Cookies.Cookie["options"]]> = [
    [ACCESS_COOKIE, tokens.access_token, { ...base, path: "/", maxAge: `${config.accessTokenTtlSeconds} seconds` }]
  ]
  if (tokens.refresh_token !== undefined) {
    cookies.push([REFRESH_COOKIE, tokens.refresh_token, { ...base, path: REFRESH_PATH, maxAge: `${config.refreshTokenTtlSeconds} seconds` }])
  }
  // Readable by the page (not HttpOnly): it sends it back in X-CSRF-Token.
  cookies.push([CSRF_COOKIE, existingCsrf ?? randomBytes(24).toString("base64url"), {
    sameSite: "lax",
    secure: secure(config),
    path: "/",
    maxAge: `${config.refreshTokenTtlSeconds} seconds`
  }])
  return Cookies.fromIterable(cookies.map(([name, value, options]) => Cookies.unsafeMakeCookie(name, value, options)))
}

/** Expired cookies: what logout sends. */
export const clearedCookies = (config: Settings) =>
  Cookies.fromIterable([
    Cookies.unsafeMakeCookie(ACCESS_COOKIE, "", { httpOnly: true, sameSite: "lax", secure: secure(config), path: "/", maxAge: 0 }),
    Cookies.unsafeMakeCookie(REFRESH_COOKIE, "", { httpOnly: true, sameSite: "lax", secure: secure(config), path: REFRESH_PATH, maxAge: 0 }),
    Cookies.unsafeMakeCookie(CSRF_COOKIE, "", { sameSite: "lax", secure: secure(config), path: "/", maxAge: 0 })
  ])

const originOf = (value: string | undefined) => value !== undefined && URL.canParse(value) ? new URL(value).origin : undefined

/** The gateway's own origin, one of CORS_ORIGINS, or the origin of the Host the browser addressed. */
export const isAllowedOrigin = (config: Settings, origin: string, host: string | undefined) =>
  origin === new URL(config.publicBaseUrl).origin ||
  config.corsOrigins.includes(origin) ||
  (host !== undefined && URL.canParse(origin) && new URL(origin).host === host)

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y)
}

/**
 * An unsafe request authenticated by cookie must come from an allowed origin and carry the
 * double-submit token: `X-CSRF-Token` equal to the `csrf_token` cookie. Returns why it fails.
 */
export const csrfFailure = (
  config: Settings,
  request: { readonly method: string; readonly headers: Readonly<Record<string, string | undefined>>; readonly cookies: Readonly<Record<string, string>> }
): string | undefined => {
  if (!isUnsafeMethod(request.method)) return undefined
  const origin = request.headers.origin ?? originOf(request.headers.referer)
  if (origin === undefined || !isAllowedOrigin(config, origin, request.headers.host)) {
    return "A request authenticated by cookie must come from an allowed Origin"
  }
  const token = request.headers[CSRF_HEADER]
  const cookie = request.cookies[CSRF_COOKIE]
  return token !== undefined && cookie !== undefined && sameSecret(token, cookie)
    ? undefined
    : "A request authenticated by cookie must send the X-CSRF-Token header equal to the csrf_token cookie"
}

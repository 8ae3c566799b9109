import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Option } from "effect"
import { clearedCookies, CSRF_COOKIE, CSRF_HEADER, isAllowedOrigin, sessionCookies } from "../../platform/BrowserSession.js"
import type { AppConfigShape } from "../../platform/Config.js"
import { isWidgetRoute } from "../auth/Credentials.js"

type Settings = Pick<AppConfigShape, "publicBaseUrl" | "corsOrigins" | "accessTokenTtlSeconds" | "refreshTokenTtlSeconds">

/** Routes whose success hands out tokens: the gateway also stores them as cookies for browsers. */
const SESSION_ROUTES = new Set([
  "/api/v1/auth/login",
  "/api/v1/auth/refresh",
  "/api/v1/auth/auth/otp/verify",
  "/api/v1/auth/auth/totp/verify",
  "/api/v1/auth/auth/sso/callback",
  "/api/v1/auth/switch-tenant"
])
export const LOGOUT_ROUTE = "/api/v1/auth/logout"

const decoder = new TextDecoder()
const parseJson = Option.liftThrowable((text: string): unknown => JSON.parse(text))

const tokensIn = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.status !== 200 || response.body._tag !== "Uint8Array") return undefined
  const parsed = Option.getOrUndefined(parseJson(decoder.decode(response.body.body)))
  const body = (typeof parsed === "object" && parsed !== null ? parsed : {}) as { access_token?: unknown; refresh_token?: unknown }
  return typeof body.access_token === "string"
    ? { access_token: body.access_token, refresh_token: typeof body.refresh_token === "string" ? body.refresh_token : undefined }
    : undefined
}

/** Sign-ins and refreshes set the session cookies; logout clears them (00-decisions section 8). */
export const applySessionCookies = (
  config: Settings,
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  response: HttpServerResponse.HttpServerResponse
) => {
  if (path === LOGOUT_ROUTE && response.status < 300) return HttpServerResponse.mergeCookies(response, clearedCookies(config))
  if (!SESSION_ROUTES.has(path)) return response
  const tokens = tokensIn(response)
  return tokens === undefined
    ? response
    : HttpServerResponse.mergeCookies(response, sessionCookies(config, tokens, request.cookies[CSRF_COOKIE]))
}

const SSO_CALLBACK = "/api/v1/auth/auth/sso/callback"

/**
 * A browser that comes back from its identity provider lands in the console, not on JSON: signed in
 * (the cookies set above) it goes to `/`; with a second factor to give, to the sign-in page with the
 * partial token in the fragment (never sent to a server or a log); refused, to the sign-in page
 * with the reason's code. API clients (no `text/html` in Accept) keep the JSON answer.
 */
export const ssoBrowserLanding = (request: HttpServerRequest.HttpServerRequest, path: string, response: HttpServerResponse.HttpServerResponse) => {
  if (path !== SSO_CALLBACK || !(request.headers.accept ?? "").includes("text/html")) return response
  const redirect = (location: string) => HttpServerResponse.setHeader(HttpServerResponse.setStatus(response, 303), "location", location)
  const body = response.body._tag === "Uint8Array" ? Option.getOrUndefined(parseJson(decoder.decode(response.body.body))) : undefined
  const fields = (typeof body === "object" && body !== null ? body : {}) as { code?: unknown; partial_auth_token?: unknown }
  if (response.status >= 400) return redirect(`/sign-in?sso_error=${encodeURIComponent(typeof fields.code === "string" ? fields.code : "SSO_FAILED")}`)
  if (typeof fields.partial_auth_token === "string") return redirect(`/sign-in#totp=${encodeURIComponent(fields.partial_auth_token)}`)
  return redirect("/")
}

const EXPOSED = "X-Request-Id, Retry-After, Location, Allow"
const ALLOWED_HEADERS = `Authorization, Content-Type, X-API-Key, ${CSRF_HEADER}, Idempotency-Key, Last-Event-ID, X-Request-Id`

const corsOrigin = (config: Settings, request: HttpServerRequest.HttpServerRequest) => {
  const origin = request.headers.origin
  return origin !== undefined && config.corsOrigins.includes(origin) ? origin : undefined
}

const WIDGET_HEADERS = "Content-Type, X-API-Key, Idempotency-Key, Last-Event-ID, X-Request-Id"
const pathOf = (request: HttpServerRequest.HttpServerRequest) => new URL(request.url, "http://gateway").pathname

/**
 * The chat widget's routes answer any page's origin, without credentials: the browser sends no
 * cookie with them and no session is read, and the widget key itself names the origins it may be
 * used from (403 WIDGET_ORIGIN_NOT_ALLOWED from any other).
 */
const widgetPreflight = (origin: string) =>
  HttpServerResponse.empty({
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": "GET, POST, PATCH",
      "access-control-allow-headers": WIDGET_HEADERS,
      "access-control-max-age": "600",
      vary: "Origin"
    }
  })

/**
 * A preflight from one of `CORS_ORIGINS` is allowed with credentials; from any other origin it is
 * refused (403), and other origins never get CORS headers, so browsers keep them out; but for the
 * chat widget's routes (above).
 */
export const preflight = (config: Settings, request: HttpServerRequest.HttpServerRequest) => {
  const method = request.headers["access-control-request-method"]
  if (request.method !== "OPTIONS" || method === undefined) return undefined
  const origin = corsOrigin(config, request)
  const foreign = request.headers.origin
  if (origin === undefined && foreign !== undefined && isWidgetRoute(method.toUpperCase(), pathOf(request))) return widgetPreflight(foreign)
  if (origin === undefined && !isAllowedOrigin(config, request.headers.origin ?? "", request.headers.host)) return "refused" as const
  return HttpServerResponse.empty({
    status: 204,
    headers: {
      ...(origin !== undefined ? { "access-control-allow-origin": origin, "access-control-allow-credentials": "true" } : {}),
      "access-control-allow-methods": "GET, HEAD, POST, PUT, PATCH, DELETE",
      "access-control-allow-headers": request.headers["access-control-request-headers"] ?? ALLOWED_HEADERS,
      "access-control-max-age": "600",
      vary: "Origin"
    }
  })
}

/** CORS headers on an answer to an allowed origin. */
export const withCors = (config: Settings, request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) => {
  const origin = corsOrigin(config, request)
  const foreign = request.headers.origin
  if (origin === undefined && foreign !== undefined && isWidgetRoute(request.method, pathOf(request))) {
    return HttpServerResponse.setHeaders(response, { "access-control-allow-origin": foreign, "access-control-expose-headers": EXPOSED, vary: "Origin" })
  }
  return origin === undefined
    ? response
    : HttpServerResponse.setHeaders(response, {
      "access-control-allow-origin": origin,
      "access-control-allow-credentials": "true",
      "access-control-expose-headers": EXPOSED,
      vary: "Origin"
    })
}

import { HttpApi } from "@effect/platform"
import { Context, Option } from "effect"
import * as FindMyWay from "find-my-way-ts"
import { PlatformApi } from "../../schemas/Api.js"
import type { Role } from "../../schemas/Roles.js"
import { AllowedRoles } from "../../schemas/Security.js"

interface RouteShape {
  readonly method: string
  readonly pattern: RegExp
  readonly roles: ReadonlyArray<Role> | undefined
}

const toPattern = (path: string) => new RegExp("^" + path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\/:[^/]+/g, "/[^/]+") + "/?$")

const collect = (): ReadonlyArray<RouteShape> => {
  const routes: Array<RouteShape> = []
  HttpApi.reflect(PlatformApi, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) =>
      routes.push({
        method: endpoint.method,
        pattern: toPattern(endpoint.path),
        roles: Option.getOrUndefined(Context.getOption(endpoint.annotations, AllowedRoles))
      })
  })
  return routes
}

const routes = collect()

// The templates as the API's router matches them (find-my-way, as HttpRouter does): one lookup per request.
const templates = FindMyWay.make<string>({ ignoreTrailingSlash: true })
HttpApi.reflect(PlatformApi, {
  onGroup: () => undefined,
  onEndpoint: ({ endpoint }) => templates.on(endpoint.method, endpoint.path, endpoint.path)
})

/** The request target's path, as the router matches it (no URL object on every request). */
export const pathOf = (url: string) => {
  if (!url.startsWith("/")) return new URL(url, "http://gateway").pathname
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

/**
 * The route template a request matched (`/api/v1/workflow/runs/:id`), for metrics and the access
 * log: never the raw path, whose ids would make every request its own series. `other` for what
 * no API route matches (the console's files, unknown paths).
 */
export const routeTemplate = (method: string, pathname: string): string => {
  if (pathname === "/metrics") return "/metrics"
  return templates.find(method === "HEAD" ? "GET" : method, pathname)?.handler ?? "other"
}

/** The methods the API serves on this path, to tell 405 from 404. */
export const allowedMethods = (pathname: string): ReadonlyArray<string> => [
  ...new Set(routes.filter((r) => r.pattern.test(pathname)).map((r) => r.method))
]

/** The roles the endpoint at this method and path serves, when it declares them. */
export const allowedRoles = (method: string, pathname: string): ReadonlyArray<Role> | undefined =>
  routes.find((r) => r.method === method && r.pattern.test(pathname))?.roles

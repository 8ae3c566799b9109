import { HttpApi } from "@effect/platform"
import { Context, Option } from "effect"
import { PlatformApi } from "../../schemas/Api.js"
import type { Role } from "../../schemas/Roles.js"
import { AllowedRoles } from "../../schemas/Security.js"

interface RouteShape {
  readonly method: string
  readonly pattern: RegExp
  readonly roles: ReadonlyArray<Role> | undefined
}

const toPattern = (path: string) =>
  new RegExp("^" + path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\/:[^/]+/g, "/[^/]+") + "/?$")

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

/** The methods the API serves on this path, to tell 405 from 404. */
export const allowedMethods = (pathname: string): ReadonlyArray<string> => [
  ...new Set(routes.filter((r) => r.pattern.test(pathname)).map((r) => r.method))
]

/** The roles the endpoint at this method and path serves, when it declares them. */
export const allowedRoles = (method: string, pathname: string): ReadonlyArray<Role> | undefined =>
  routes.find((r) => r.method === method && r.pattern.test(pathname))?.roles

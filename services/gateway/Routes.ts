import { HttpApi } from "@effect/platform"
import { PlatformApi } from "../../schemas/Api.js"

interface RouteShape {
  readonly method: string
  readonly pattern: RegExp
}

const toPattern = (path: string) =>
  new RegExp("^" + path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\/:[^/]+/g, "/[^/]+") + "/?$")

const collect = (): ReadonlyArray<RouteShape> => {
  const routes: Array<RouteShape> = []
  HttpApi.reflect(PlatformApi, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => routes.push({ method: endpoint.method, pattern: toPattern(endpoint.path) })
  })
  return routes
}

const routes = collect()

/** The methods the API serves on this path, to tell 405 from 404. */
export const allowedMethods = (pathname: string): ReadonlyArray<string> => [
  ...new Set(routes.filter((r) => r.pattern.test(pathname)).map((r) => r.method))
]

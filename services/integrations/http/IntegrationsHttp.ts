import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { Catalog } from "../Catalog.js"
import { Functions } from "../Functions.js"
import { Installs } from "../Installs.js"
import { OAuthConnections } from "../OAuthConnections.js"

export const IntegrationsHttp = HttpApiBuilder.group(PlatformApi, "integrations", (handlers) =>
  Effect.gen(function*() {
    const catalog = yield* Catalog
    const installs = yield* Installs
    const functions = yield* Functions
    const oauth = yield* OAuthConnections
    const as = <A, E, R>(f: (p: typeof CurrentPrincipal.Service) => Effect.Effect<A, E, R>) => Effect.flatMap(CurrentPrincipal, f)
    return handlers
      .handle("catalog", () => as((p) => catalog.list(p)))
      .handle("catalogEntry", ({ path }) => as((p) => catalog.get(p, path.id)))
      .handle("createEntry", ({ payload }) => as((p) => catalog.create(p, payload)))
      .handle("importSpec", ({ payload }) => as((p) => catalog.importSpec(p, payload)))
      .handle("capabilities", () => as((p) => installs.capabilities(p)))
      .handle("installed", () => as((p) => installs.list(p)))
      .handle("install", ({ payload }) => as((p) => installs.install(p, payload.catalog_id, payload.package)))
      .handle("installation", ({ path }) => as((p) => installs.get(p, path.id)))
      .handle("uninstall", ({ path }) => as((p) => installs.uninstall(p, path.id)))
      .handle("credentials", ({ path, payload }) => as((p) => installs.setCredentials(p, path.id, payload.capability, payload.credentials)))
      .handle("enableFunction", ({ path }) => as((p) => installs.enableFunction(p, path.id, path.name)))
      .handle("disableFunction", ({ path }) => as((p) => installs.disableFunction(p, path.id, path.name)))
      .handle("oauthAuthorize", ({ path, payload }) => as((p) => oauth.authorize(p, path.id, payload.redirect_uri)))
      .handle("oauthCallback", ({ path, payload }) => as((p) => oauth.callback(p, path.id, payload.code, payload.state)))
      .handle("connection", ({ path }) => as((p) => oauth.mine(p, path.id)))
      .handle("revokeConnection", ({ path }) => as((p) => oauth.revoke(p, path.id)))
      .handle("callable", () => as((p) => functions.callable(p)))
      .handle("execute", ({ payload }) => as((p) => functions.execute(p, payload)))
      .handle("executions", ({ urlParams }) => as((p) => functions.executions(p, urlParams)))
      .handle("execution", ({ path }) => as((p) => functions.execution(p, path.id)))
  }))

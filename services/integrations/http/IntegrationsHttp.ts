import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
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
    return handlers
      .handle("catalog", () => asCaller((p) => catalog.list(p)))
      .handle("catalogEntry", ({ path }) => asCaller((p) => catalog.get(p, path.id)))
      .handle("createEntry", ({ payload }) => asCaller((p) => catalog.create(p, payload)))
      .handle("importSpec", ({ payload }) => asCaller((p) => catalog.importSpec(p, payload)))
      .handle("capabilities", () => asCaller((p) => installs.capabilities(p)))
      .handle("installed", () => asCaller((p) => installs.list(p)))
      .handle("install", ({ payload }) => asCaller((p) => installs.install(p, payload.catalog_id, payload.package)))
      .handle("installation", ({ path }) => asCaller((p) => installs.get(p, path.id)))
      .handle("uninstall", ({ path }) => asCaller((p) => installs.uninstall(p, path.id)))
      .handle("credentials", ({ path, payload }) => asCaller((p) => installs.setCredentials(p, path.id, payload.capability, payload.credentials)))
      .handle("enableFunction", ({ path }) => asCaller((p) => installs.enableFunction(p, path.id, path.name)))
      .handle("disableFunction", ({ path }) => asCaller((p) => installs.disableFunction(p, path.id, path.name)))
      .handle("oauthAuthorize", ({ path, payload }) => asCaller((p) => oauth.authorize(p, path.id, payload.redirect_uri)))
      .handle("oauthCallback", ({ path, payload }) => asCaller((p) => oauth.callback(p, path.id, payload.code, payload.state)))
      .handle("connection", ({ path }) => asCaller((p) => oauth.mine(p, path.id)))
      .handle("revokeConnection", ({ path }) => asCaller((p) => oauth.revoke(p, path.id)))
      .handle("callable", () => asCaller((p) => functions.callable(p)))
      .handle("execute", ({ payload }) => asCaller((p) => functions.execute(p, payload)))
      .handle("executions", ({ urlParams }) => asCaller((p) => functions.executions(p, urlParams)))
      .handle("execution", ({ path }) => asCaller((p) => functions.execution(p, path.id)))
  }))

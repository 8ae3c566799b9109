import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { McpServers } from "../mcp/McpServers.js"

export const McpServersHttp = HttpApiBuilder.group(PlatformApi, "mcpServers", (handlers) =>
  Effect.map(McpServers, (servers) => {
    const as = <A, E, R>(f: (p: typeof CurrentPrincipal.Service) => Effect.Effect<A, E, R>) => Effect.flatMap(CurrentPrincipal, f)
    return handlers
      .handle("list", () => as((p) => servers.list(p)))
      .handle("create", ({ payload }) => as((p) => servers.create(p, payload)))
      .handle("get", ({ path }) => as((p) => servers.get(p, path.id)))
      .handle("update", ({ path, payload }) => as((p) => servers.update(p, path.id, payload)))
      .handle("remove", ({ path }) => as((p) => servers.remove(p, path.id)))
      .handle("tools", ({ path }) => as((p) => servers.tools(p, path.id)))
      .handle("refreshTools", ({ path }) => as((p) => servers.refresh(p, path.id)))
      .handle("activate", ({ path }) => as((p) => servers.activate(p, path.id)))
      .handle("disable", ({ path }) => as((p) => servers.disable(p, path.id)))
      .handle("enable", ({ path }) => as((p) => servers.enable(p, path.id)))
  }))

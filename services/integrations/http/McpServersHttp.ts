import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { McpServers } from "../mcp/McpServers.js"

export const McpServersHttp = HttpApiBuilder.group(PlatformApi, "mcpServers", (handlers) =>
  Effect.map(McpServers, (servers) => {
    return handlers
      .handle("list", () => asCaller((p) => servers.list(p)))
      .handle("create", ({ payload }) => asCaller((p) => servers.create(p, payload)))
      .handle("get", ({ path }) => asCaller((p) => servers.get(p, path.id)))
      .handle("update", ({ path, payload }) => asCaller((p) => servers.update(p, path.id, payload)))
      .handle("remove", ({ path }) => asCaller((p) => servers.remove(p, path.id)))
      .handle("tools", ({ path }) => asCaller((p) => servers.tools(p, path.id)))
      .handle("refreshTools", ({ path }) => asCaller((p) => servers.refresh(p, path.id)))
      .handle("activate", ({ path }) => asCaller((p) => servers.activate(p, path.id)))
      .handle("disable", ({ path }) => asCaller((p) => servers.disable(p, path.id)))
      .handle("enable", ({ path }) => asCaller((p) => servers.enable(p, path.id)))
  }))

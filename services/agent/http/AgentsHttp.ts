import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { Agents } from "../Agents.js"

export const AgentsHttp = HttpApiBuilder.group(PlatformApi, "agents", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* Agents
    return handlers
      .handle("types", () => asCaller((p) => agents.types(p)))
      .handle("presets", () => asCaller((p) => agents.presets(p)))
      .handle("file", ({ path }) =>
        asCaller((p) => agents.file(p, path.id)).pipe(
          Effect.map((f) =>
            HttpServerResponse.uint8Array(f.content, {
              contentType: f.content_type,
              headers: { "content-disposition": `attachment; filename="${f.filename.replace(/"/g, "")}"` }
            })
          )
        ))
      .handle("typeVersion", ({ path }) => asCaller((p) => agents.typeVersion(p, path.type, path.version)))
      .handle("createDefinition", ({ payload }) => asCaller((p) => agents.createDefinition(p, payload)))
      .handle("listDefinitions", ({ urlParams }) => asCaller((p) => agents.listDefinitions(p, urlParams)))
      .handle("getDefinition", ({ path }) => asCaller((p) => agents.definition(p, path.id)))
      .handle("replaceDefinition", ({ path, payload }) => asCaller((p) => agents.replaceDefinition(p, path.id, payload)))
      .handle("deleteDefinition", ({ path }) => asCaller((p) => agents.deleteDefinition(p, path.id)))
      .handle("testExecute", ({ payload }) => asCaller((p) => agents.testExecute(p, payload)))
      .handle("testExecutions", ({ urlParams }) => asCaller((p) => agents.executions(p, urlParams)))
      .handle("testExecution", ({ path }) => asCaller((p) => agents.execution(p, path.id)))
  }))

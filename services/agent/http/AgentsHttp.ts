import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { Agents } from "../Agents.js"

export const AgentsHttp = HttpApiBuilder.group(PlatformApi, "agents", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* Agents
    const as = CurrentPrincipal
    return handlers
      .handle("types", () => Effect.flatMap(as, (p) => agents.types(p)))
      .handle("presets", () => Effect.flatMap(as, (p) => agents.presets(p)))
      .handle("file", ({ path }) =>
        Effect.flatMap(as, (p) => agents.file(p, path.id)).pipe(
          Effect.map((f) =>
            HttpServerResponse.uint8Array(f.content, {
              contentType: f.content_type,
              headers: { "content-disposition": `attachment; filename="${f.filename.replace(/"/g, "")}"` }
            })
          )
        ))
      .handle("typeVersion", ({ path }) => Effect.flatMap(as, (p) => agents.typeVersion(p, path.type, path.version)))
      .handle("createDefinition", ({ payload }) => Effect.flatMap(as, (p) => agents.createDefinition(p, payload)))
      .handle("listDefinitions", ({ urlParams }) => Effect.flatMap(as, (p) => agents.listDefinitions(p, urlParams)))
      .handle("getDefinition", ({ path }) => Effect.flatMap(as, (p) => agents.definition(p, path.id)))
      .handle("replaceDefinition", ({ path, payload }) => Effect.flatMap(as, (p) => agents.replaceDefinition(p, path.id, payload)))
      .handle("deleteDefinition", ({ path }) => Effect.flatMap(as, (p) => agents.deleteDefinition(p, path.id)))
      .handle("testExecute", ({ payload }) => Effect.flatMap(as, (p) => agents.testExecute(p, payload)))
      .handle("testExecutions", ({ urlParams }) => Effect.flatMap(as, (p) => agents.executions(p, urlParams)))
      .handle("testExecution", ({ path }) => Effect.flatMap(as, (p) => agents.execution(p, path.id)))
  }))

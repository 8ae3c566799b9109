import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { Publishing } from "../Publishing.js"
import { Workflows } from "../Workflows.js"

export const WorkflowsHttp = HttpApiBuilder.group(PlatformApi, "workflows", (handlers) =>
  Effect.gen(function*() {
    const workflows = yield* Workflows
    const publishing = yield* Publishing
    const as = CurrentPrincipal
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(as, (p) => workflows.create(p, payload)))
      .handle("list", ({ urlParams }) => Effect.flatMap(as, (p) => workflows.list(p, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(as, (p) => workflows.get(p, path.id)))
      .handle("replace", ({ path, payload }) => Effect.flatMap(as, (p) => workflows.save(p, path.id, payload)))
      .handle("update", ({ path, payload }) => Effect.flatMap(as, (p) => workflows.save(p, path.id, payload)))
      .handle("archive", ({ path }) => Effect.flatMap(as, (p) => workflows.archive(p, path.id)))
      .handle("restore", ({ path }) => Effect.flatMap(as, (p) => workflows.restore(p, path.id)))
      .handle("getConfig", ({ path }) => Effect.flatMap(as, (p) => workflows.getConfig(p, path.id)))
      .handle("putConfig", ({ path, payload }) => Effect.flatMap(as, (p) => workflows.putConfig(p, path.id, payload)))
      .handle("patchLlmConfig", ({ path, payload }) =>
        Effect.flatMap(as, (p) => workflows.patchLlmConfig(p, path.id, payload)))
      .handle("publish", ({ path }) => Effect.flatMap(as, (p) => publishing.publish(p, path.id)))
      .handle("versions", ({ path, urlParams }) => Effect.flatMap(as, (p) => publishing.list(p, path.id, urlParams)))
      .handle("version", ({ path }) => Effect.flatMap(as, (p) => publishing.get(p, path.id, path.version)))
      .handle("templates", () => Effect.flatMap(as, (p) => workflows.templates(p)))
      .handle("fromTemplate", ({ path }) => Effect.flatMap(as, (p) => workflows.fromTemplate(p, path.id)))
  }))

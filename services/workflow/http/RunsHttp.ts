import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { lastEventId } from "../../../platform/http/LastEventId.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { Hitl } from "../Hitl.js"
import { Runs } from "../Runs.js"
import { RunStream } from "../RunStream.js"
import { Traces } from "../traces/Traces.js"

export const RunsHttp = HttpApiBuilder.group(PlatformApi, "runs", (handlers) =>
  Effect.gen(function*() {
    const runs = yield* Runs
    const stream = yield* RunStream
    const traces = yield* Traces
    const as = CurrentPrincipal
    return handlers
      .handle("run", ({ headers, path, payload }) =>
        Effect.flatMap(as, (p) => runs.start(p, path.id, payload, { dryRun: false, idempotencyKey: headers["idempotency-key"] })))
      .handle("dryRun", ({ headers, path, payload }) =>
        Effect.flatMap(as, (p) =>
          runs.start(p, path.id, payload, { dryRun: true, idempotencyKey: headers["idempotency-key"] })))
      .handle("get", ({ path }) =>
        Effect.flatMap(as, (p) =>
          runs.get(p, path.run_id)))
      .handle("steps", ({ path }) => Effect.flatMap(as, (p) => runs.steps(p, path.run_id)))
      .handle("stream", ({ path }) =>
        Effect.gen(function*() {
          const principal = yield* as
          return yield* stream.open(principal, path.run_id, yield* lastEventId)
        }))
      .handle("externalToolSnapshots", ({ path }) => Effect.flatMap(as, (p) => runs.externalToolSnapshots(p, path.run_id)))
      .handle("listForWorkflow", ({ path, urlParams }) => Effect.flatMap(as, (p) => runs.listForWorkflow(p, path.id, urlParams)))
      .handle("recent", ({ urlParams }) => Effect.flatMap(as, (p) => runs.recent(p, urlParams)))
      .handle("history", ({ urlParams }) => Effect.flatMap(as, (p) => runs.history(p, urlParams)))
      .handle("cancel", ({ path }) => Effect.flatMap(as, (p) => runs.cancel(p, path.id)))
      .handle("trace", ({ path }) => Effect.flatMap(as, (p) => traces.runTrace(p, path.run_id)))
      .handle("workflowTrace", ({ path, urlParams }) => Effect.flatMap(as, (p) => traces.workflowTrace(p, path.id, urlParams)))
  }))

export const HitlHttp = HttpApiBuilder.group(PlatformApi, "hitl", (handlers) =>
  Effect.gen(function*() {
    const hitl = yield* Hitl
    const as = CurrentPrincipal
    return handlers
      .handle("pending", ({ urlParams }) => Effect.flatMap(as, (p) => hitl.pending(p, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(as, (p) => hitl.get(p, path.request_id)))
      .handle("respond", ({ path, payload }) => Effect.flatMap(as, (p) => hitl.respond(p, path.request_id, payload.response)))
      .handle("claim", ({ path }) => Effect.flatMap(as, (p) => hitl.claim(p, path.request_id)))
      .handle("cancel", ({ path }) => Effect.flatMap(as, (p) => hitl.cancel(p, path.request_id)))
  }))

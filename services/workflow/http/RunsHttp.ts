import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { lastEventId } from "../../../platform/http/LastEventId.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { Hitl } from "../Hitl.js"
import { Runs } from "../Runs.js"
import { RunStartRate } from "../RunStartRate.js"
import { RunStream } from "../RunStream.js"
import { Traces } from "../traces/Traces.js"

export const RunsHttp = HttpApiBuilder.group(PlatformApi, "runs", (handlers) =>
  Effect.gen(function*() {
    const runs = yield* Runs
    const stream = yield* RunStream
    const traces = yield* Traces
    const rate = yield* RunStartRate
    return handlers
      .handle("run", ({ headers, path, payload }) =>
        asCaller((p) =>
          Effect.zipRight(rate.check(p), runs.start(p, path.id, payload, { dryRun: false, idempotencyKey: headers["idempotency-key"] }))
        ))
      .handle("dryRun", ({ headers, path, payload }) =>
        asCaller((p) =>
          Effect.zipRight(rate.check(p), runs.start(p, path.id, payload, { dryRun: true, idempotencyKey: headers["idempotency-key"] }))
        ))
      .handle("get", ({ path }) =>
        asCaller((p) => runs.get(p, path.run_id)))
      .handle("steps", ({ path }) => asCaller((p) => runs.steps(p, path.run_id)))
      .handle("stream", ({ path }) => asCaller((principal) => Effect.flatMap(lastEventId, (last) => stream.open(principal, path.run_id, last))))
      .handle("externalToolSnapshots", ({ path }) => asCaller((p) => runs.externalToolSnapshots(p, path.run_id)))
      .handle("listForWorkflow", ({ path, urlParams }) => asCaller((p) => runs.listForWorkflow(p, path.id, urlParams)))
      .handle("recent", ({ urlParams }) => asCaller((p) => runs.recent(p, urlParams)))
      .handle("history", ({ urlParams }) => asCaller((p) => runs.history(p, urlParams)))
      .handle("cancel", ({ path }) => asCaller((p) => runs.cancel(p, path.id)))
      .handle("trace", ({ path }) => asCaller((p) => traces.runTrace(p, path.run_id)))
      .handle("workflowTrace", ({ path, urlParams }) => asCaller((p) => traces.workflowTrace(p, path.id, urlParams)))
  }))

export const HitlHttp = HttpApiBuilder.group(PlatformApi, "hitl", (handlers) =>
  Effect.gen(function*() {
    const hitl = yield* Hitl
    return handlers
      .handle("pending", ({ urlParams }) => asCaller((p) => hitl.pending(p, urlParams)))
      .handle("get", ({ path }) => asCaller((p) => hitl.get(p, path.request_id)))
      .handle("respond", ({ path, payload }) => asCaller((p) => hitl.respond(p, path.request_id, payload.response)))
      .handle("claim", ({ path }) => asCaller((p) => hitl.claim(p, path.request_id)))
      .handle("cancel", ({ path }) => asCaller((p) => hitl.cancel(p, path.request_id)))
  }))

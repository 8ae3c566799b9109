import { Effect, Schema, Tracer } from "effect"
import { rootSpanId, runTraceId } from "../../otel/RunTraceIds.js"
import { CallAieNode as CallAieNodeSchema } from "../../schemas/Dag.js"
import { asRecord } from "../../schemas/Records.js"
import { error } from "../dag/Findings.js"
import { renderDeep } from "../dag/Render.js"
import { defineNode, done, waitFor } from "./NodeType.js"

/** How a child run ended: the resolution of a `child` wait. */
export const ChildEnding = Schema.Struct({
  status: Schema.Literal("completed", "failed", "cancelled"),
  output: Schema.Unknown,
  error: Schema.NullOr(Schema.String)
})
export type ChildEnding = typeof ChildEnding.Type

/**
 * call_aie: runs another AI Employee's active version as a child run (which records
 * `parent_run_id`), waits for it without holding anything, and takes its output.
 */
export const CallAieNode = defineNode({
  type: "call_aie",
  schema: CallAieNodeSchema,
  failures: { CHILD_UNREADABLE: "dependency", CHILD_FAILED: "dependency" },
  rereadsContext: true,
  refs: (node) => ({ workflowIds: [node.call_aie_config.workflow_id] }),
  check: (node, { facts }) => {
    const target = node.call_aie_config.workflow_id
    return target === facts.selfWorkflowId
      ? [error("CALL_AIE_RECURSION", `'${node.id}' calls its own AI Employee`, node.id)]
      : !facts.callableWorkflows.has(target)
      ? [error("CALL_AIE_TARGET_NOT_FOUND", `'${node.id}' calls an AI Employee that is not published here`, node.id)]
      : []
  },
  make: (fail) =>
    Effect.succeed({
      execute: (execution, node) =>
        Effect.gen(function*() {
          const config = node.call_aie_config
          const input = asRecord(renderDeep(config.input_params ?? {}, execution.context))
          const child = yield* execution.startChild(config.workflow_id, input)
          // The step's span points at the child's trace.
          const span = yield* Effect.option(Effect.currentSpan)
          if (span._tag === "Some") {
            span.value.attribute("bp.child_run_id", child)
            span.value.addLinks([{
              _tag: "SpanLink",
              span: Tracer.externalSpan({ traceId: runTraceId(child), spanId: rootSpanId(child), sampled: true }),
              attributes: { "bp.link": "child_run" }
            }])
          }
          return waitFor({ kind: "child", key: child, pauses: false })
        }),
      resume: (_execution, _node, resolution) =>
        Effect.gen(function*() {
          const ending = yield* Schema.decodeUnknown(ChildEnding)(resolution).pipe(
            Effect.mapError(() => fail("CHILD_UNREADABLE", "the child run's outcome is unreadable"))
          )
          if (ending.status === "completed") return done({ output: ending.output, usage: {} })
          return yield* fail("CHILD_FAILED", `child run ${ending.status === "cancelled" ? "was cancelled" : ending.error ?? "failed"}`)
        })
    })
})

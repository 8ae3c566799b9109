import { Effect, Schema } from "effect"
import { warning } from "../../runtime/dag/Findings.js"
import { renderDeep } from "../../runtime/dag/Render.js"
import { defineNode, done } from "../../runtime/nodes/NodeType.js"
import { nodeBase } from "../../schemas/Dag.js"

/**
 * A node type that exists only in this file (issue 36: adding a node type touches its file and
 * the list; here the list is the test platform's `nodes`). It renders `text` against the run and
 * transforms it; its config schema, publish check and failure codes are all here.
 */
export const TextTransformNodeSchema = Schema.Struct({
  ...nodeBase,
  type: Schema.Literal("text_transform"),
  text_transform_config: Schema.Struct({
    text: Schema.String,
    mode: Schema.Literal("upper", "lower", "same"),
    max_length: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => 1000 })
  })
})

export const TextTransformNode = defineNode({
  type: "text_transform",
  schema: TextTransformNodeSchema,
  failures: { TOO_LONG: "configuration" },
  check: (node) =>
    node.text_transform_config.mode === "same"
      ? [warning("TRANSFORM_DOES_NOTHING", `'${node.id}' leaves its text as it is`, node.id)]
      : [],
  make: (fail) =>
    Effect.succeed({
      execute: (execution, node) =>
        Effect.gen(function*() {
          const config = node.text_transform_config
          const text = String(renderDeep(config.text, execution.context) ?? "")
          if (text.length > config.max_length) return yield* fail("TOO_LONG", `${text.length} characters, more than ${config.max_length}`)
          const out = config.mode === "upper" ? text.toUpperCase() : config.mode === "lower" ? text.toLowerCase() : text
          return done({ output: { text: out }, usage: {} })
        })
    })
})

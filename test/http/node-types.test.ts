import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { RunStreamEvent } from "../../schemas/RunLifecycle.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { publishedWorkflow } from "../support/RunPlatform.js"
import { readStream, startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatformLive } from "../support/TestPlatform.js"
import { TextTransformNode } from "../support/TextTransformNode.js"
import { createWorkflow, publish, respondNode, saveDag } from "../support/Workflows.js"

// Issue 36, point 2: a node type is one file. The fixture's text_transform type is published,
// checked, run and failed with its own reason code, with nothing else in the platform changed.

const PlatformWithFixture = Layer.unwrapEffect(
  Effect.map(ScriptedModel, (model) => TestPlatformLive({ env: { LLM_BASE_URL: model.baseUrl, LLM_MODELS: "test-model" }, nodes: [TextTransformNode] }))
).pipe(Layer.provideMerge(ScriptedModel.layer))

const transform = (id: string, config: Record<string, unknown>) => ({ id, type: "text_transform", text_transform_config: config })

layer(PlatformWithFixture, { excludeTestServices: true, timeout: "60 seconds" })("a node type added in one file", (it) => {
  it.effect("its schema and check run at save and publish; it runs after an agent step and reads its output", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "Quiet please" }))

      const w = yield* createWorkflow(token, { name: "Shouter" })
      const saved = yield* saveDag(token, w.id, { nodes: [transform("t", { text: "x" })] })
      assert.strictEqual(saved.status, 200, saved.text)
      const invalid = saved.body.warnings as ReadonlyArray<{ code: string; node_id?: string; message: string }>
      assert.deepStrictEqual(invalid.map((f) => [f.code, f.node_id]), [["NODE_INVALID", "t"]])
      assert.include(invalid[0].message, "mode")
      assert.strictEqual((yield* publish(token, w.id)).status, 422)

      const idle = yield* saveDag(token, w.id, { nodes: [transform("t", { text: "x", mode: "same" })] })
      assert.deepInclude(idle.body.warnings, { code: "TRANSFORM_DOES_NOTHING", severity: "warning", node_id: "t", message: "'t' leaves its text as it is" })

      const id = yield* publishedWorkflow(token, {
        nodes: [respondNode("answer", "Say something"), transform("shout", { text: "{{nodes.answer.output.text}}!", mode: "upper" })],
        edges: [{ from: "answer", to: "shout" }],
        outputs: [{ name: "shouted", value: "{{nodes.shout.output.text}}" }]
      })
      const run = (yield* startRun(token, id, {})).body.id as string
      const ended = yield* waitForStatus(token, run, ["completed", "failed"])
      assert.strictEqual(ended.status, "completed", JSON.stringify(ended))
      assert.deepStrictEqual(ended.named_outputs, { shouted: "QUIET PLEASE!" })
      const steps = (yield* http("GET", `/api/v1/workflow/runs/${run}/steps`, { token })).body.items as Array<{ node_id: string; node_type: string }>
      assert.deepStrictEqual(steps.map((s) => [s.node_id, s.node_type]), [["answer", "agent"], ["shout", "text_transform"]])
    }))

  it.effect("its failures carry its reason code and kind: a step over its limit is not retryable", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const id = yield* publishedWorkflow(token, { nodes: [transform("shout", { text: "far too long", mode: "upper", max_length: 3 })] })
      const run = (yield* startRun(token, id, {})).body.id as string
      assert.strictEqual((yield* waitForStatus(token, run, ["completed", "failed"])).status, "failed")
      const events = (yield* readStream(token, run)).events.map((e) => Schema.decodeUnknownSync(RunStreamEvent)(e.data))
      assert.deepInclude(events.find((e) => e.type === "step_failed"), {
        node_id: "shout",
        error: "12 characters, more than 3",
        error_kind: "configuration",
        error_code: "TOO_LONG",
        retryable: false
      })
      // The step row keeps the same classification.
      const steps = (yield* http("GET", `/api/v1/workflow/runs/${run}/steps`, { token })).body.items as Array<Record<string, unknown>>
      assert.deepInclude(steps.find((s) => s.node_id === "shout"), {
        status: "failed",
        error: "12 characters, more than 3",
        error_kind: "configuration",
        error_code: "TOO_LONG",
        retryable: false
      })
    }))
})

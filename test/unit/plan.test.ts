import { assert, describe, it } from "@effect/vitest"
import { holds } from "../../runtime/dag/Conditions.js"
import type { RunContext } from "../../runtime/dag/Context.js"
import { type NodeState, planStep, settleSkips } from "../../runtime/dag/Plan.js"
import { renderDeep, renderString, renderText } from "../../runtime/dag/Render.js"
import type { Edge } from "../../schemas/Dag.js"

const ctx = (nodes: RunContext["nodes"] = {}, input: Record<string, unknown> = {}): RunContext => ({
  workflow_input: input,
  nodes,
  run: { id: "r1", trigger_type: "api" }
})

describe("planning", () => {
  //  classify ──[intent=billing]──▶ billing ──▶ notify
  //     └──────[intent=other]────▶ other
  const ids = ["classify", "billing", "other", "notify"]
  const edges: Array<Edge> = [
    { from: "classify", to: "billing", condition: { ref: "nodes.classify.output.intent", op: "eq", value: "billing" } },
    { from: "classify", to: "other", condition: { ref: "nodes.classify.output.intent", op: "eq", value: "other" } },
    { from: "billing", to: "notify" }
  ]

  it("roots are ready first; nothing downstream runs before its upstream settles", () => {
    const step = planStep(ids, edges, new Map(), ctx())
    assert.deepStrictEqual(step, { ready: ["classify"], skip: [] })
    const running = planStep(ids, edges, new Map([["classify", "running"]]), ctx())
    assert.deepStrictEqual(running, { ready: [], skip: [] })
  })

  it("a branch whose condition fails is skipped, and so is what only it feeds", () => {
    const states = new Map<string, NodeState>([["classify", "completed"]])
    const context = ctx({ classify: { output: { intent: "other" } } })
    const { ready, skipped } = settleSkips(ids, edges, states, context)
    assert.deepStrictEqual(ready, ["other"])
    assert.deepStrictEqual([...skipped].sort(), ["billing", "notify"])
  })

  it("a node runs when at least one incoming edge is active", () => {
    //  a ──▶ c ◀── b (b skipped)
    const e: Array<Edge> = [{ from: "a", to: "c" }, { from: "b", to: "c" }]
    const states = new Map<string, NodeState>([["a", "completed"], ["b", "skipped"]])
    assert.deepStrictEqual(planStep(["a", "b", "c"], e, states, ctx()).ready, ["c"])
  })

  it("independent branches are ready together", () => {
    //  start ──▶ x
    //    └────▶ y
    const e: Array<Edge> = [{ from: "start", to: "x" }, { from: "start", to: "y" }]
    const states = new Map<string, NodeState>([["start", "completed"]])
    assert.deepStrictEqual(planStep(["start", "x", "y"], e, states, ctx()).ready, ["x", "y"])
  })
})

describe("conditions", () => {
  const c = ctx({ n: { output: { score: 7, tag: "b", list: [1] } } })
  it("every operator", () => {
    assert.isTrue(holds({ ref: "nodes.n.output.tag", op: "eq", value: "b" }, c))
    assert.isTrue(holds({ ref: "nodes.n.output.tag", op: "neq", value: "a" }, c))
    assert.isTrue(holds({ ref: "nodes.n.output.tag", op: "in", value: ["a", "b"] }, c))
    assert.isTrue(holds({ ref: "nodes.n.output.tag", op: "not_in", value: ["a"] }, c))
    assert.isTrue(holds({ ref: "nodes.n.output.list", op: "exists" }, c))
    assert.isTrue(holds({ ref: "nodes.n.output.nope", op: "not_exists" }, c))
    assert.isTrue(holds({ ref: "nodes.n.output.score", op: "gt", value: 5 }, c))
    assert.isTrue(holds({ ref: "nodes.n.output.score", op: "lt", value: 8 }, c))
    assert.isFalse(holds({ ref: "nodes.n.output.score", op: "gt", value: "5" }, c))
    assert.isFalse(holds({ ref: "nodes.n.output.tag", op: "in", value: "b" }, c))
  })
})

describe("templates", () => {
  const c = ctx({ a: { output: { text: "hi", obj: { k: 1 } } } }, { name: "Ada" })
  it("a whole-string template keeps the value; inside text a missing path is empty", () => {
    assert.deepStrictEqual(renderString("{{nodes.a.output.obj}}", c), { k: 1 })
    assert.isUndefined(renderString("{{workflow_input.missing}}", c))
    assert.strictEqual(renderString("Hello {{workflow_input.name}}{{workflow_input.missing}}!", c), "Hello Ada!")
    assert.strictEqual(renderText("{{run.id}} {{nodes.a.output.obj}}", c), "r1 {\"k\":1}")
    assert.deepStrictEqual(renderDeep({ to: "{{workflow_input.name}}", cc: "{{workflow_input.none}}", list: ["{{nodes.a.output.text}}"] }, c), {
      to: "Ada",
      list: ["hi"]
    })
  })
})

import { assert, describe, it } from "@effect/vitest"
import { makeGraph, reachableFrom, topologicalOrder } from "../../runtime/dag/Graph.js"
import { classifyRef, templateRefs } from "../../runtime/dag/TemplateRefs.js"
import { blocksPublish, type DagFacts, validateDag } from "../../runtime/dag/Validate.js"
import { BuiltinNodes } from "../../runtime/nodes/Nodes.js"
import { nodeContracts } from "../../runtime/nodes/NodeType.js"

const builtin = nodeContracts(BuiltinNodes)

const facts = (over: Partial<DagFacts> = {}): DagFacts => ({
  llmAvailable: true,
  memberEmails: new Set(["lead@example.test"]),
  resolvableRoles: new Set(["user", "builder"]),
  groupIds: new Set(["11111111-1111-4111-8111-111111111111"]),
  queueGroupIds: new Set(["11111111-1111-4111-8111-111111111111"]),
  mcpServers: new Map([["mcp-ok", "approved"], ["mcp-pending", "pending"]]),
  tools: new Map([["crm.lookup", { configSchema: { type: "object", required: ["region"], properties: { region: { type: "string" } } } }]]),
  callableWorkflows: new Set(["22222222-2222-4222-8222-222222222222"]),
  selfWorkflowId: "33333333-3333-4333-8333-333333333333",
  interactionType: "form",
  legacySteps: new Set(),
  ...over
})

const agent = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: "agent",
  agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Answer", ...extra }
})

const codes = (dag: unknown, f = facts()) => validateDag(dag, f, builtin).warnings.map((w) => w.code).sort()

describe("graph", () => {
  //   a ──▶ b ──▶ d
  //   └───▶ c ──▶┘
  const g = makeGraph(["a", "b", "c", "d"], [{ from: "a", to: "b" }, { from: "a", to: "c" }, { from: "b", to: "d" }, { from: "c", to: "d" }])
  it("orders topologically and finds what is downstream", () => {
    const { cyclic, order } = topologicalOrder(g)
    assert.deepStrictEqual(cyclic, [])
    assert.strictEqual(order[0], "a")
    assert.strictEqual(order[3], "d")
    assert.deepStrictEqual([...reachableFrom(g, "b")], ["d"])
  })
  //   a ──▶ b ──▶ c ──▶ b (cycle)
  it("reports the nodes on a cycle", () => {
    const cyclic = makeGraph(["a", "b", "c"], [{ from: "a", to: "b" }, { from: "b", to: "c" }, { from: "c", to: "b" }])
    assert.deepStrictEqual([...topologicalOrder(cyclic).cyclic].sort(), ["b", "c"])
  })
})

describe("template references", () => {
  it("finds every {{path}} in nested values and classifies it", () => {
    assert.deepStrictEqual(templateRefs({ a: "x {{ workflow_input.msg }} {{nodes.n1.output.text}}", b: ["{{run.id}}"] }), [
      "workflow_input.msg",
      "nodes.n1.output.text",
      "run.id"
    ])
    assert.deepStrictEqual(classifyRef("nodes.n1.hitl.choice"), { kind: "node", nodeId: "n1", part: "hitl" })
    assert.strictEqual(classifyRef("secrets.key").kind, "invalid")
    assert.strictEqual(classifyRef("nodes.n1.config").kind, "invalid")
    assert.strictEqual(classifyRef("chat.history").kind, "chat")
  })
})

describe("validateDag", () => {
  it("an empty DAG can be saved but not published", () => {
    const report = validateDag({}, facts(), builtin)
    assert.deepStrictEqual(report.warnings.map((w) => w.code), ["DAG_EMPTY"])
    assert.isTrue(blocksPublish(report))
  })

  it("a well-formed DAG passes", () => {
    const report = validateDag(
      {
        input_schema: { type: "object", properties: { message: { type: "string" } } },
        nodes: [agent("a", { system_prompt_template: "{{workflow_input.message}}" }), agent("b", { system_prompt_template: "{{nodes.a.output.text}}" })],
        edges: [{ from: "a", to: "b", condition: { ref: "nodes.a.output.text", op: "exists" } }],
        outputs: [{ name: "answer", value: "{{nodes.b.output.text}}", exposed: true }]
      },
      facts(),
      builtin
    )
    assert.deepStrictEqual(report.warnings, [])
    assert.isFalse(blocksPublish(report))
  })

  it("duplicate ids, unknown edge ends, cycles and unknown node types", () => {
    assert.deepStrictEqual(codes({ nodes: [agent("a"), agent("a")] }), ["NODE_ID_DUPLICATE"])
    assert.deepStrictEqual(codes({ nodes: [agent("a")], edges: [{ from: "a", to: "ghost" }] }), ["EDGE_UNKNOWN_NODE"])
    assert.deepStrictEqual(codes({ nodes: [agent("a"), agent("b")], edges: [{ from: "a", to: "b" }, { from: "b", to: "a" }] }), ["DAG_CYCLE"])
    assert.deepStrictEqual(codes({ nodes: [{ id: "x", type: "teleport" }] }), ["NODE_TYPE_UNKNOWN"])
  })

  it("node configs must be valid for their type", () => {
    assert.deepStrictEqual(codes({ nodes: [{ id: "a", type: "agent" }] }), ["NODE_INVALID"])
    assert.deepStrictEqual(codes({ nodes: [{ id: "m", type: "send_email", send_email_config: { to: "a@b.c", subject: "s" } }] }), ["NODE_INVALID"])
    assert.deepStrictEqual(
      codes({ nodes: [{ id: "s", type: "schedule", schedule_config: { operation: "stop" } }] }, facts({ interactionType: "dashboard" })),
      []
    )
  })

  it("template and condition references must name existing nodes and valid roots", () => {
    assert.deepStrictEqual(codes({ nodes: [agent("a", { system_prompt_template: "{{nodes.zz.output.text}}" })] }), ["TEMPLATE_UNKNOWN_NODE"])
    assert.deepStrictEqual(codes({ nodes: [agent("a", { system_prompt_template: "{{env.SECRET}}" })] }), ["TEMPLATE_INVALID_REF"])
    assert.deepStrictEqual(
      codes({ nodes: [agent("a"), agent("b")], edges: [{ from: "a", to: "b", condition: { ref: "nodes.q.output.x", op: "eq", value: 1 } }] }),
      ["CONDITION_UNKNOWN_NODE"]
    )
    assert.deepStrictEqual(
      codes({
        input_schema: { type: "object", properties: { message: { type: "string" } } },
        nodes: [agent("a", { system_prompt_template: "{{workflow_input.other}}" })]
      }),
      ["TEMPLATE_UNKNOWN_INPUT"]
    )
  })

  it("NO_LLM_PROVIDER blocks a DAG with agent steps when no model is enabled", () => {
    assert.deepStrictEqual(codes({ nodes: [agent("a")] }, facts({ llmAvailable: false })), ["NO_LLM_PROVIDER"])
    assert.deepStrictEqual(
      codes({ nodes: [{ id: "s", type: "schedule", schedule_config: { operation: "stop" } }] }, facts({ llmAvailable: false, interactionType: "dashboard" })),
      []
    )
  })

  it("HITL assignees must resolve", () => {
    const hitl = (assignee: unknown) => ({ nodes: [{ ...agent("a"), hitl: { type: "approval", prompt: "ok?", assignee } }] })
    assert.deepStrictEqual(codes(hitl({ user_email: "LEAD@example.test" })), [])
    assert.deepStrictEqual(codes(hitl({ user_email: "stranger@example.test" })), ["HITL_INVALID_ASSIGNEE"])
    assert.deepStrictEqual(codes(hitl({ role: "builder" })), [])
    assert.deepStrictEqual(codes(hitl({ role: "system_admin" })), ["HITL_INVALID_ASSIGNEE"])
    assert.deepStrictEqual(codes(hitl({ group_id: "11111111-1111-4111-8111-111111111111" })), [])
    assert.deepStrictEqual(codes(hitl({ group_id: "44444444-4444-4444-8444-444444444444" })), ["HITL_INVALID_ASSIGNEE"])
  })

  it("MCP servers must exist and be approved; tools must be in the catalog with a valid configuration", () => {
    assert.deepStrictEqual(codes({ nodes: [agent("a", { mcp_server_ids: ["mcp-ok"] })] }), [])
    assert.deepStrictEqual(codes({ nodes: [agent("a", { mcp_server_ids: ["nope"] })] }), ["MCP_SERVER_NOT_FOUND"])
    assert.deepStrictEqual(codes({ nodes: [agent("a", { mcp_server_ids: ["mcp-pending"] })] }), ["MCP_SERVER_NOT_APPROVED"])
    assert.deepStrictEqual(codes({ nodes: [agent("a", { action_ids: ["crm.lookup"], tool_config: { "crm.lookup": { region: "eu" } } })] }), [])
    assert.deepStrictEqual(codes({ nodes: [agent("a", { action_ids: ["crm.lookup"], tool_config: { "crm.lookup": { region: 5 } } })] }), [
      "TOOL_CONFIG_INVALID"
    ])
    assert.deepStrictEqual(codes({ nodes: [agent("a", { action_ids: ["crm.lookup"] })] }), ["TOOL_CONFIG_INVALID"])
    assert.deepStrictEqual(codes({ nodes: [agent("a", { action_ids: ["mail.send"] })] }), ["TOOL_NOT_FOUND"])
  })

  it("agent-type versions: deprecated, deleted, broken, unknown and pre-release are listed as issues", () => {
    const report = validateDag(
      {
        nodes: [
          agent("a", { agent_type: "intent_classification", type_version: "v0" }),
          agent("b", { agent_type: "search_respond", type_version: "v0" }),
          agent("c", { agent_type: "rule_validation", type_version: "v0" }),
          agent("d", { agent_type: "respond", type_version: "v9" }),
          agent("e", { agent_type: "intent_classification", type_version: "v2" })
        ]
      },
      facts(),
      builtin
    )
    assert.deepStrictEqual(report.agentTypeIssues.map((i) => i.problem), ["deprecated", "deleted", "broken", "unknown", "pre-release"])
    assert.isTrue(blocksPublish(report))
  })

  it("call_aie needs a published AI Employee other than itself", () => {
    const call = (workflow_id: string) => ({ nodes: [{ id: "c", type: "call_aie", call_aie_config: { workflow_id } }] })
    assert.deepStrictEqual(codes(call("22222222-2222-4222-8222-222222222222")), [])
    assert.deepStrictEqual(codes(call("55555555-5555-4555-8555-555555555555")), ["CALL_AIE_TARGET_NOT_FOUND"])
    assert.deepStrictEqual(codes(call("33333333-3333-4333-8333-333333333333")), ["CALL_AIE_RECURSION"])
  })

  describe("nudges", () => {
    const nudge = (config: Record<string, unknown>) => ({ id: "n", type: "notify_user", notify_user_config: { operation: "send", ...config } })
    it("park needs a positive expiry and warns when nothing downstream re-reads", () => {
      assert.deepStrictEqual(codes({ nodes: [nudge({ mode: "park" })] }), ["NUDGE_PARK_NO_DOWNSTREAM_REREAD", "NUDGE_PARK_REQUIRES_EXPIRY"])
      assert.deepStrictEqual(codes({ nodes: [nudge({ mode: "park", expires_after_seconds: 0 })] }), [
        "NUDGE_PARK_NO_DOWNSTREAM_REREAD",
        "NUDGE_PARK_REQUIRES_EXPIRY"
      ])
      // n ──▶ a (an agent re-reads the response)
      assert.deepStrictEqual(
        codes({ nodes: [nudge({ mode: "park", expires_after_seconds: 600 }), agent("a")], edges: [{ from: "n", to: "a" }] }),
        []
      )
      const report = validateDag({ nodes: [nudge({ mode: "park", expires_after_seconds: 600 })] }, facts(), builtin)
      assert.isFalse(blocksPublish(report))
    })

    it("collect that never ends is a warning; expiry, reminders or a close node downstream end it", () => {
      const wf = "22222222-2222-4222-8222-222222222222"
      assert.deepStrictEqual(codes({ nodes: [nudge({ mode: "collect", trigger_workflow_id: wf })] }), ["NUDGE_COLLECT_NEVER_ENDS"])
      assert.deepStrictEqual(codes({ nodes: [nudge({ mode: "collect", trigger_workflow_id: wf, expires_after_seconds: 60 })] }), [])
      assert.deepStrictEqual(codes({ nodes: [nudge({ mode: "collect", trigger_workflow_id: wf, reminders: { every_seconds: 3600 } })] }), [])
      // n ──▶ close
      assert.deepStrictEqual(
        codes({
          nodes: [nudge({ mode: "collect", trigger_workflow_id: wf }), { id: "close", type: "notify_user", notify_user_config: { operation: "close" } }],
          edges: [{ from: "n", to: "close" }]
        }),
        []
      )
    })
  })

  describe("agent presets", () => {
    it("a retired preset is refused on a new step and kept on a step that already had it", () => {
      const old = agent("a", { agent_type: "search_respond", preset: "knowledge_search" })
      assert.deepStrictEqual(codes({ nodes: [old] }), ["AGENT_PRESET_RETIRED"])
      assert.deepStrictEqual(codes({ nodes: [old] }, facts({ legacySteps: new Set(["a:knowledge_search"]) })), [])
      // The same step id with another retired preset is a new step.
      assert.deepStrictEqual(codes({ nodes: [old] }, facts({ legacySteps: new Set(["a:search_and_respond"]) })), ["AGENT_PRESET_RETIRED"])
    })

    it("offered presets pass; unknown ones and ones of another type do not", () => {
      assert.deepStrictEqual(codes({ nodes: [agent("a", { agent_type: "search_respond", preset: "answer_with_citations" })] }), [])
      assert.deepStrictEqual(codes({ nodes: [agent("a", { preset: "classify_intent" })] }), ["AGENT_PRESET_MISMATCH"])
      assert.deepStrictEqual(codes({ nodes: [agent("a", { preset: "oracle" })] }), ["AGENT_PRESET_UNKNOWN"])
    })
  })
})

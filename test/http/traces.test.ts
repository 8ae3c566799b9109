import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { type ChatCompletionRequest, ScriptedModel } from "../support/ScriptedModel.js"
import { attr, keys, logsOf, runTrace, spanNamed, spansOf, type TraceBody, traceIdOf } from "../support/Traces.js"
import { respondNode } from "../support/Workflows.js"

const hasToolReply = (r: ChatCompletionRequest) => (r.messages as ReadonlyArray<{ role: string }>).some((m) => m.role === "tool")

/** ask ──▶ act (a custom step with a tool call) */
const toolDag = {
  nodes: [
    respondNode("ask", "Secret instructions for {{workflow_input.message}}"),
    {
      id: "act",
      type: "agent",
      agent_config: { agent_type: "custom", type_version: "v1", system_prompt_template: "Use tools", action_ids: ["builtin.knowledge_search"] }
    }
  ],
  edges: [{ from: "ask", to: "act" }]
}

const toolScript = (r: ChatCompletionRequest) =>
  r.tools === undefined
    ? { text: "asked", usage: { prompt_tokens: 7, completion_tokens: 3 } }
    : hasToolReply(r)
    ? { text: "acted" }
    : { toolCalls: [{ id: "t1", name: "builtin_knowledge_search", arguments: JSON.stringify({ query: "policy" }) }] }

const completedRun = (token: string, workflowId: string, input: Record<string, unknown> = { message: "hi" }) =>
  Effect.gen(function*() {
    const run = yield* startRun(token, workflowId, input)
    const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
    return { id: run.body.id as string, status: done.status as string }
  })

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "90 seconds" })("run traces", (it) => {
  it.effect("a run is one OTLP trace: root, a span per step, model and tool calls; logs in the same trace", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(toolScript)
      const id = yield* publishedWorkflow(token, toolDag)
      const run = yield* completedRun(token, id)
      assert.strictEqual(run.status, "completed")
      const r = yield* runTrace(token, run.id)
      assert.strictEqual(r.status, 200)
      const body = r.body as TraceBody
      assert.strictEqual(body.truncated, false)
      const spans = spansOf(body)
      assert.isTrue(spans.every((s) => s.traceId === traceIdOf(run.id)))
      const root = yield* spanNamed(body, "run Helper")
      assert.isUndefined(root.parentSpanId)
      assert.strictEqual(attr(root, "run.status"), "completed")
      assert.strictEqual(attr(root, "workflow.id"), id)
      assert.strictEqual(root.status.code, 1)
      const ask = yield* spanNamed(body, "node ask")
      const act = yield* spanNamed(body, "node act")
      assert.strictEqual(ask.parentSpanId, root.spanId)
      assert.strictEqual(act.parentSpanId, root.spanId)
      assert.strictEqual(attr(ask, "node.type"), "agent")
      assert.strictEqual(attr(ask, "step.status"), "completed")
      const calls = spans.filter((s) => s.name === "llm.call")
      assert.strictEqual(calls.length, 3)
      const askCall = calls.find((c) => attr(c, "llm.output") === "asked")!
      assert.strictEqual(attr(askCall, "gen_ai.request.model"), "test-model")
      assert.strictEqual(attr(askCall, "gen_ai.usage.input_tokens"), 7)
      assert.strictEqual(attr(askCall, "gen_ai.usage.output_tokens"), 3)
      assert.strictEqual(attr(askCall, "llm.instructions"), "Secret instructions for hi")
      assert.isNumber(attr(askCall, "llm.latency_ms"))
      // llm.call ─▶ agent.run ─▶ node ask
      const agentRun = spans.find((s) => s.spanId === askCall.parentSpanId)!
      assert.strictEqual(agentRun.name, "agent.run")
      assert.strictEqual(agentRun.parentSpanId, ask.spanId)
      const tool = yield* spanNamed(body, "tool.call")
      assert.strictEqual(attr(tool, "tool.id"), "builtin.knowledge_search")
      assert.strictEqual(attr(tool, "tool.arguments"), JSON.stringify({ query: "policy" }))
      assert.include(String(attr(tool, "tool.result")), "results")
      assert.isTrue(BigInt(ask.startTimeUnixNano) >= BigInt(root.startTimeUnixNano))
      assert.isTrue(BigInt(act.endTimeUnixNano) <= BigInt(root.endTimeUnixNano))

      const logs = logsOf(body)
      assert.deepStrictEqual(logs.map((l) => attr(l, "event.name")), [
        "step_started",
        "agent_completed",
        "step_completed",
        "step_started",
        "tool_called",
        "agent_completed",
        "step_completed",
        "run_completed"
      ])
      const called = logs.find((l) => attr(l, "event.name") === "tool_called")!
      assert.strictEqual(called.spanId, act.spanId)
      assert.match(String(called.body.stringValue), /^Step 'act' called builtin\.knowledge_search: success in [\d.]+ ms$/)
      assert.isTrue(logs.every((l) => l.traceId === traceIdOf(run.id)))
      assert.strictEqual(logs[0].spanId, ask.spanId)
      assert.strictEqual(logs.at(-1)!.spanId, root.spanId)
      assert.strictEqual(logs[0].body.stringValue, "Step 'ask' started")
      assert.strictEqual((yield* runTrace(token, "00000000-0000-4000-8000-000000000000")).status, 404)
    }))

  it.effect("detail by role: instructions for env/system admins, model, tokens, tools and errors for builder_admin, the outline for others", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(toolScript)
      const id = yield* publishedWorkflow(admin, toolDag)
      const run = yield* completedRun(admin, id)
      const tokenFor = (role: "system_admin" | "builder_admin" | "builder" | "user") =>
        createMember(admin, role).pipe(Effect.flatMap((m) => loginToken(m.email, m.password)))
      const view = (token: string) => runTrace(token, run.id).pipe(Effect.map((r) => r.body as TraceBody))

      for (const token of [admin, yield* tokenFor("system_admin")]) {
        const call = spansOf(yield* view(token)).find((s) => s.name === "llm.call")!
        assert.strictEqual(attr(call, "llm.instructions"), "Secret instructions for hi")
      }

      const builderAdmin = yield* view(yield* tokenFor("builder_admin"))
      const ba = spansOf(builderAdmin)
      const baCall = ba.find((s) => s.name === "llm.call")!
      assert.strictEqual(attr(baCall, "gen_ai.request.model"), "test-model")
      assert.isNumber(attr(baCall, "gen_ai.usage.total_tokens"))
      assert.isUndefined(attr(baCall, "llm.instructions"))
      assert.isUndefined(attr(baCall, "llm.input"))
      assert.isUndefined(attr(baCall, "llm.output"))
      assert.include(String(attr(ba.find((s) => s.name === "tool.call")!, "tool.result")), "results")
      assert.notInclude(JSON.stringify(builderAdmin), "Secret instructions")

      for (const role of ["builder", "user"] as const) {
        const basic = yield* view(yield* tokenFor(role))
        const spans = spansOf(basic)
        assert.includeMembers(spans.map((s) => s.name), ["node ask", "node act", "llm.call", "tool.call"])
        const allowed = [
          "bp.run_id",
          "workflow.id",
          "workflow.name",
          "workflow.version",
          "run.status",
          "run.trigger_type",
          "run.is_dry_run",
          "node.id",
          "node.type",
          "node.name",
          "step.id",
          "step.status",
          "agent.type",
          "agent.type_version"
        ]
        for (const span of spans) assert.deepStrictEqual(keys(span).filter((k) => !allowed.includes(k)), [], `${role}: ${span.name}`)
        assert.isTrue(spans.every((s) => s.startTimeUnixNano.length > 0 && s.endTimeUnixNano.length > 0))
        assert.notInclude(JSON.stringify(basic), "Secret instructions")
        assert.notInclude(JSON.stringify(basic), "test-model")
        assert.deepStrictEqual(logsOf(basic).map((l) => l.body.stringValue), logsOf(basic).map((l) => attr(l, "event.name")))
      }
    }))

  it.effect("errors: builder_admin reads the message, other roles a sanitized marker", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ status: 400 }))
      const id = yield* publishedWorkflow(admin, { nodes: [respondNode("ask")] })
      const run = yield* completedRun(admin, id)
      assert.strictEqual(run.status, "failed")
      const as = (role: "builder_admin" | "user") =>
        createMember(admin, role).pipe(
          Effect.flatMap((m) => loginToken(m.email, m.password)),
          Effect.flatMap((t) => runTrace(t, run.id)),
          Effect.map((r) => r.body as TraceBody)
        )
      const detailed = yield* as("builder_admin")
      const step = yield* spanNamed(detailed, "node ask")
      assert.strictEqual(step.status.code, 2)
      assert.include(step.status.message!, "Model answered 400")
      assert.include(String(attr(logsOf(detailed).find((l) => attr(l, "event.name") === "step_failed")!, "event.error")), "Model answered 400")
      const root = yield* spanNamed(detailed, "run Helper")
      assert.include(String(attr(root, "run.error")), "Model answered 400")

      const basic = yield* as("user")
      const basicStep = yield* spanNamed(basic, "node ask")
      assert.strictEqual(basicStep.status.code, 2)
      assert.strictEqual(basicStep.status.message, "error")
      assert.deepStrictEqual(basicStep.events, [])
      assert.notInclude(JSON.stringify(basic), "Model answered")
    }))

  it.effect("HITL pause and resume are events on the root span; a child run links to its parent", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      const id = yield* publishedWorkflow(token, {
        nodes: [{ ...respondNode("ask"), hitl: { type: "approval", prompt: "Go?", assignee: { role: "builder" } } }]
      })
      const run = yield* startRun(token, id, {})
      const request = yield* eventually(
        http("GET", "/api/v1/workflow/hitl/pending?page_size=100", { token }).pipe(
          Effect.map((r) => r.body.items.find((i: { run_id: string }) => i.run_id === run.body.id) as { request_id: string } | undefined)
        ),
        "the HITL request"
      )
      const paused = (yield* runTrace(token, run.body.id)).body as TraceBody
      const open = yield* spanNamed(paused, "run Helper")
      assert.strictEqual(attr(open, "run.in_progress"), true)
      assert.deepStrictEqual(open.events.map((e) => e.name), ["hitl.paused"])
      yield* http("POST", `/api/v1/workflow/hitl/${request.request_id}/respond`, { token, body: { response: { approved: true } } })
      yield* waitForStatus(token, run.body.id, ["completed"])
      const done = yield* spanNamed((yield* runTrace(token, run.body.id)).body as TraceBody, "run Helper")
      assert.deepStrictEqual(done.events.map((e) => e.name), ["hitl.paused", "hitl.resumed"])
      assert.strictEqual(attr(done.events[0], "hitl.request_id"), request.request_id)
      assert.strictEqual(attr(done.events[1], "node.id"), "ask")

      const parent = yield* publishedWorkflow(token, {
        nodes: [{ id: "delegate", type: "call_aie", call_aie_config: { workflow_id: yield* publishedWorkflow(token, { nodes: [respondNode("child")] }) } }]
      })
      const parentRun = yield* completedRun(token, parent)
      const parentTrace = (yield* runTrace(token, parentRun.id)).body as TraceBody
      const delegate = yield* spanNamed(parentTrace, "node delegate")
      const childId = String(attr(delegate, "bp.child_run_id"))
      assert.strictEqual(delegate.links[0].traceId, traceIdOf(childId))
      const childTrace = (yield* runTrace(token, childId)).body as TraceBody
      const childRoot = spansOf(childTrace).find((s) => s.parentSpanId === undefined)!
      assert.strictEqual(attr(childRoot, "bp.parent_run_id"), parentRun.id)
      const parentRoot = spansOf(parentTrace).find((s) => s.parentSpanId === undefined)!
      assert.deepStrictEqual(childRoot.links.map((l) => [l.traceId, l.spanId]), [[traceIdOf(parentRun.id), parentRoot.spanId]])
    }))

  it.effect("the workflow's worklogs merge newest first, filtered by time, paged by token", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("ask")] })
      const first = yield* completedRun(token, id)
      const middle = new Date().toISOString()
      const second = yield* completedRun(token, id)
      const third = yield* completedRun(token, id)
      yield* http("POST", `/api/v1/workflow/workflows/${id}/dry-run`, { token, body: { input_params: {} } })
      const base = `/api/v1/workflow/workflows/${id}/runs/trace`
      const page1 = yield* http("GET", `${base}?page_size=2`, { token })
      assert.strictEqual(page1.status, 200, page1.text)
      assert.deepStrictEqual(page1.body.runs.map((r: { run_id: string }) => r.run_id), [third.id, second.id])
      const traceIds = [...new Set(spansOf(page1.body).map((s) => s.traceId))]
      assert.deepStrictEqual(traceIds, [traceIdOf(third.id), traceIdOf(second.id)])
      assert.isString(page1.body.next_page_token)
      const page2 = yield* http("GET", `${base}?page_size=2&page_token=${page1.body.next_page_token}`, { token })
      assert.deepStrictEqual(page2.body.runs.map((r: { run_id: string }) => r.run_id), [first.id])
      assert.isNull(page2.body.next_page_token)
      assert.isTrue(logsOf(page2.body).every((l) => l.traceId === traceIdOf(first.id)))
      const since = yield* http("GET", `${base}?start_time=${encodeURIComponent(middle)}`, { token })
      assert.deepStrictEqual(since.body.runs.map((r: { run_id: string }) => r.run_id), [third.id, second.id])
      const until = yield* http("GET", `${base}?end_time=${encodeURIComponent(middle)}`, { token })
      assert.deepStrictEqual(until.body.runs.map((r: { run_id: string }) => r.run_id), [first.id])
      assert.strictEqual((yield* http("GET", `${base}?page_token=garbage`, { token })).status, 400)
      assert.strictEqual((yield* http("GET", `${base}?start_time=yesterday`, { token })).status, 400)
      assert.strictEqual((yield* http("GET", "/api/v1/workflow/workflows/00000000-0000-4000-8000-000000000000/runs/trace", { token })).status, 404)
    }))

  it.effect("60 trace requests per minute per workspace across both endpoints, then 429 with Retry-After", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      // A workspace of its own, so that the other tests' requests do not count.
      const tenant = yield* createTenant(admin, `traces-${Date.now().toString(36)}`)
      const member = yield* createMember(admin, "builder_admin", { tenantId: tenant.id })
      const token = yield* loginToken(member.email, member.password, tenant.slug)
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("ask")] })
      const run = yield* completedRun(token, id)
      for (let i = 0; i < 30; i++) assert.strictEqual((yield* runTrace(token, run.id)).status, 200)
      for (let i = 0; i < 30; i++) assert.strictEqual((yield* http("GET", `/api/v1/workflow/workflows/${id}/runs/trace`, { token })).status, 200)
      const limited = yield* runTrace(token, run.id)
      assert.strictEqual(limited.status, 429)
      assert.strictEqual(limited.body.code, "RATE_LIMITED")
      assert.isAbove(Number(limited.headers.get("retry-after")), 0)
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/workflows/${id}/runs/trace`, { token })).status, 429)
      // Another workspace is not limited.
      assert.strictEqual((yield* runTrace(admin, run.id)).status, 404)
    }))
})

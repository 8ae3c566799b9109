import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { TestPlatformLive } from "../support/TestPlatform.js"
import { createWorkflow, getWorkflow, LLM_ENV, publish, respondNode, saveDag, simpleDag, versionsOf } from "../support/Workflows.js"

layer(TestPlatformLive({ redis: false, env: LLM_ENV }), { excludeTestServices: true })("versions and publishing", (it) => {
  it.effect("saves write drafts; publish reuses the matching latest draft and makes it the only active version", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, simpleDag("one"))
      const saved = yield* saveDag(token, w.id, simpleDag("two"))
      assert.strictEqual(saved.body.latest_version, 3)
      const p = yield* publish(token, w.id)
      assert.strictEqual(p.status, 200)
      assert.strictEqual(p.body.number, 3)
      assert.isTrue(p.body.active)
      assert.isString(p.body.published_at)
      assert.deepStrictEqual(p.body.warnings, [])
      assert.strictEqual(p.body.config_snapshot.llm_mode, "ALL")
      assert.deepStrictEqual(p.body.exposed_outputs, [{ name: "answer", value: "{{nodes.answer.output.text}}", exposed: true }])
      assert.deepStrictEqual(p.body.knowledge_base_snapshot, [])
      assert.isUndefined(p.body.data_revert_dispatch)
      const after = yield* getWorkflow(token, w.id)
      assert.strictEqual(after.status, "published")
      assert.strictEqual(after.active_version, 3)
      assert.strictEqual(after.latest_version, 3)
      assert.strictEqual(after.builder_state, "published")

      yield* saveDag(token, w.id, simpleDag("three"))
      const changed = yield* getWorkflow(token, w.id)
      assert.strictEqual(changed.builder_state, "unpublished_changes")
      assert.strictEqual(changed.active_version, 3)
      // Publishing again when the latest is already published saves a new draft first.
      yield* publish(token, w.id)
      const p2 = yield* publish(token, w.id)
      assert.strictEqual(p2.body.number, 5)
      const versions = yield* versionsOf(token, w.id)
      assert.deepStrictEqual(versions.map((v) => v.number), [5, 4, 3, 2, 1])
      assert.deepStrictEqual(versions.filter((v) => v.active).map((v) => v.number), [5])
      assert.isUndefined(versions.find((v) => v.number === 2)?.published_at)
      // Who saved and published, by name as well as by id (the console's history shows it).
      const me = (yield* http("GET", "/api/v1/auth/users/me", { token })).body.user
      const five = versions.find((v) => v.number === 5) as Record<string, unknown> | undefined
      assert.strictEqual(five?.saved_by_name, me.name)
      assert.strictEqual(five?.published_by_name, me.name)
      const one = yield* http("GET", `/api/v1/workflow/workflows/${w.id}/versions/3`, { token })
      assert.deepStrictEqual(one.body.dag_definition, simpleDag("two"))
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/workflows/${w.id}/versions/99`, { token })).status, 404)
    }))

  it.effect("failed checks refuse the publish with 422 and leave the active version alone", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      const empty = yield* publish(token, w.id)
      assert.strictEqual(empty.status, 422)
      assert.strictEqual(empty.body.details[0].code, "DAG_EMPTY")
      yield* saveDag(token, w.id, simpleDag())
      yield* publish(token, w.id)
      const cases: Array<[unknown, string]> = [
        [{ nodes: [{ ...respondNode("a"), hitl: { type: "approval", prompt: "ok?", assignee: { user_email: "nobody@x.test" } } }] }, "HITL_INVALID_ASSIGNEE"],
        [{ nodes: [respondNode("a"), respondNode("b")], edges: [{ from: "a", to: "b" }, { from: "b", to: "a" }] }, "DAG_CYCLE"],
        [{ nodes: [{ ...respondNode("a"), agent_config: { ...respondNode("a").agent_config, mcp_server_ids: ["files"] } }] }, "MCP_SERVER_NOT_FOUND"],
        [{ nodes: [{ ...respondNode("a"), agent_config: { ...respondNode("a").agent_config, action_ids: ["crm.lookup"] } }] }, "TOOL_NOT_FOUND"],
        [{
          nodes: [{ id: "n", type: "notify_user", notify_user_config: { operation: "send", mode: "park" } }, respondNode("a")],
          edges: [{ from: "n", to: "a" }]
        }, "NUDGE_PARK_REQUIRES_EXPIRY"]
      ]
      for (const [dag, code] of cases) {
        yield* saveDag(token, w.id, dag)
        const r = yield* publish(token, w.id)
        assert.strictEqual(r.status, 422, code)
        assert.include(r.body.details.map((d: { code: string }) => d.code), code)
        assert.strictEqual(r.body.code, r.body.details[0].code, "the answer's code is the first blocker's")
        assert.strictEqual(r.body.code, code)
        assert.isString(r.body.request_id)
      }
      const still = yield* getWorkflow(token, w.id)
      assert.strictEqual(still.active_version, 2)
      const active = (yield* versionsOf(token, w.id)).filter((v) => v.active)
      assert.deepStrictEqual(active.map((v) => v.number), [2])
    }))

  it.effect("agent-type version problems come back as 422 with error.issues[]", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, {
        nodes: [
          { id: "old", type: "agent", agent_config: { agent_type: "intent_classification", type_version: "v0", system_prompt_template: "x" } },
          { id: "new", type: "agent", agent_config: { agent_type: "intent_classification", type_version: "v2", system_prompt_template: "x" } }
        ]
      })
      const r = yield* publish(token, w.id)
      assert.strictEqual(r.status, 422)
      assert.strictEqual(r.body.code, "AGENT_TYPE_VERSION_INVALID")
      assert.deepStrictEqual(r.body.error.issues.map((i: { node_id: string; problem: string }) => [i.node_id, i.problem]), [
        ["old", "deprecated"],
        ["new", "pre-release"]
      ])
    }))

  it.effect("NO_LLM_PROVIDER: the AI Employee's llm_mode must leave a model to call", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, simpleDag())
      yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}/llm-config`, {
        token,
        body: { llm_mode: "SELECTED", selected_model_ids: ["not-offered"] }
      })
      const refused = yield* publish(token, w.id)
      assert.strictEqual(refused.status, 422)
      assert.include(refused.body.details.map((d: { code: string }) => d.code), "NO_LLM_PROVIDER")
      assert.strictEqual(refused.body.code, "NO_LLM_PROVIDER", "a client that switches on code sees the blocker")
      yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}/llm-config`, { token, body: { selected_model_ids: ["other-model"] } })
      assert.strictEqual((yield* publish(token, w.id)).status, 200)
    }))

  it.effect("a publish with advisory warnings succeeds and reports them", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, {
        input_schema: { type: "object", properties: { message: { type: "string" } } },
        nodes: [respondNode("a", "Answer {{workflow_input.topic}}")]
      })
      const r = yield* publish(token, w.id)
      assert.strictEqual(r.status, 200)
      assert.deepStrictEqual(r.body.warnings.map((x: { code: string; severity: string }) => [x.code, x.severity]), [
        ["TEMPLATE_UNKNOWN_INPUT", "warning"]
      ])
    }))

  it.effect("rename and describe; names unique per AI Employee; the active version cannot be deleted; numbers are never reused", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, simpleDag())
      yield* publish(token, w.id)
      const named = yield* http("PATCH", `/api/v1/ai-employees/${w.id}/versions/2`, { token, body: { name: "Launch", description: "First live" } })
      assert.strictEqual(named.status, 200)
      assert.strictEqual(named.body.name, "Launch")
      assert.isTrue(named.body.active)
      const dup = yield* http("PATCH", `/api/v1/ai-employees/${w.id}/versions/1`, { token, body: { name: "Launch" } })
      assert.strictEqual(dup.status, 409)
      const cleared = yield* http("PATCH", `/api/v1/ai-employees/${w.id}/versions/2`, { token, body: { name: null } })
      assert.isUndefined(cleared.body.name)
      const active = yield* http("DELETE", `/api/v1/ai-employees/${w.id}/versions/2`, { token })
      assert.strictEqual(active.status, 409)
      assert.strictEqual(active.body.code, "ACTIVE_VERSION")
      yield* saveDag(token, w.id, simpleDag("draft"))
      assert.strictEqual((yield* http("DELETE", `/api/v1/ai-employees/${w.id}/versions/3`, { token })).status, 204)
      assert.strictEqual((yield* http("GET", `/api/v1/ai-employees/${w.id}/versions/3`, { token })).status, 404)
      const next = yield* saveDag(token, w.id, simpleDag("again"))
      assert.strictEqual(next.body.latest_version, 4)
    }))

  it.effect("revert stages a draft of the target; the live version serves until it is published", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, simpleDag("v2"))
      yield* publish(token, w.id)
      yield* saveDag(token, w.id, simpleDag("v3"))
      yield* publish(token, w.id)
      const reverted = yield* http("POST", `/api/v1/ai-employees/${w.id}/versions/2/revert`, { token })
      assert.strictEqual(reverted.status, 200)
      assert.strictEqual(reverted.body.number, 4)
      assert.strictEqual(reverted.body.reverted_from, 2)
      assert.isFalse(reverted.body.active)
      assert.deepStrictEqual(reverted.body.dag_definition, simpleDag("v2"))
      const during = yield* getWorkflow(token, w.id)
      assert.strictEqual(during.active_version, 3)
      assert.strictEqual(during.latest_version, 4)
      assert.strictEqual(during.builder_state, "unpublished_changes")
      assert.deepStrictEqual(during.dag_definition, simpleDag("v2"))
      const live = yield* publish(token, w.id)
      assert.strictEqual(live.body.number, 4)
      assert.strictEqual(live.body.data_revert_dispatch, "ok")
      assert.strictEqual((yield* getWorkflow(token, w.id)).builder_state, "published")
      assert.strictEqual((yield* http("POST", `/api/v1/ai-employees/${w.id}/versions/77/revert`, { token })).status, 404)
    }))

  it.effect("promote (deprecated) activates a published version as it is and leaves latest ahead", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, simpleDag("v2"))
      yield* publish(token, w.id)
      yield* saveDag(token, w.id, simpleDag("v3"))
      yield* publish(token, w.id)
      const promoted = yield* http("POST", `/api/v1/ai-employees/${w.id}/versions/2/promote`, { token })
      assert.strictEqual(promoted.status, 200)
      assert.isTrue(promoted.body.active)
      const after = yield* getWorkflow(token, w.id)
      assert.strictEqual(after.active_version, 2)
      assert.strictEqual(after.latest_version, 3)
      assert.deepStrictEqual(after.dag_definition, simpleDag("v3"))
      assert.strictEqual(after.builder_state, "unpublished_changes")
      const draft = yield* http("POST", `/api/v1/ai-employees/${w.id}/versions/1/promote`, { token })
      assert.strictEqual(draft.status, 409)
    }))

  it.effect("document-diff compares two published versions' knowledge-base sets", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, simpleDag("v2"))
      yield* publish(token, w.id)
      yield* saveDag(token, w.id, simpleDag("v3"))
      yield* publish(token, w.id)
      const diff = yield* http("GET", `/api/v1/ai-employees/${w.id}/versions/2/document-diff?compare_to=3`, { token })
      assert.strictEqual(diff.status, 200)
      assert.deepStrictEqual(diff.body, { from_version: 2, to_version: 3, added: [], removed: [], changed: [] })
      const draft = yield* http("GET", `/api/v1/ai-employees/${w.id}/versions/1/document-diff?compare_to=3`, { token })
      assert.strictEqual(draft.status, 422)
      assert.strictEqual((yield* http("GET", `/api/v1/ai-employees/${w.id}/versions/2/document-diff`, { token })).status, 400)
    }))

  it.effect("concurrent publishes leave exactly one active version", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, simpleDag())
      const results = yield* Effect.all(Array.from({ length: 8 }, () => publish(token, w.id)), { concurrency: "unbounded" })
      assert.isTrue(results.every((r) => r.status === 200))
      const versions = yield* versionsOf(token, w.id)
      assert.strictEqual(versions.filter((v) => v.active).length, 1)
      const numbers = versions.map((v) => v.number)
      assert.strictEqual(new Set(numbers).size, numbers.length)
      const wf = yield* getWorkflow(token, w.id)
      assert.strictEqual(wf.active_version, Math.max(...numbers))
    }))

  it.effect("history is readable by anyone with access; writes need a builder role", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const w = yield* createWorkflow(admin)
      yield* saveDag(admin, w.id, simpleDag())
      yield* publish(admin, w.id)
      const u = yield* createMember(admin, "user")
      const token = yield* loginToken(u.email, u.password)
      assert.strictEqual((yield* http("GET", `/api/v1/ai-employees/${w.id}/versions`, { token })).status, 200)
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/workflows/${w.id}/versions/2`, { token })).status, 200)
      assert.strictEqual((yield* http("PATCH", `/api/v1/ai-employees/${w.id}/versions/2`, { token, body: { name: "x" } })).status, 403)
      assert.strictEqual((yield* http("POST", `/api/v1/ai-employees/${w.id}/versions/1/revert`, { token })).status, 403)
      assert.strictEqual((yield* http("DELETE", `/api/v1/ai-employees/${w.id}/versions/1`, { token })).status, 403)
      assert.strictEqual((yield* http("POST", `/api/v1/ai-employees/${w.id}/publish`, { token })).status, 403)
    }))

  it.effect("adoption: a published AI Employee shared into another workspace runs on its own history, read-only", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const w = yield* createWorkflow(admin, { name: "Shared helper" })
      const target = yield* createTenant(admin, "adopter-co")
      const notYet = yield* http("POST", `/api/v1/ai-employees/${w.id}/share`, { token: admin, body: { target_tenant_id: target.id } })
      assert.strictEqual(notYet.status, 409)
      yield* saveDag(admin, w.id, simpleDag())
      yield* publish(admin, w.id)
      const shared = yield* http("POST", `/api/v1/ai-employees/${w.id}/share`, { token: admin, body: { target_tenant_id: target.id } })
      assert.strictEqual(shared.status, 201)
      assert.isString(shared.body.adopted_at)
      assert.strictEqual(shared.body.tenant_id, target.id)
      assert.strictEqual(shared.body.active_version, 1)
      assert.strictEqual(shared.body.status, "published")

      const local = yield* createMember(admin, "builder", { tenantId: target.id })
      const token = yield* loginToken(local.email, local.password)
      const seen = yield* http("GET", `/api/v1/workflow/workflows/${shared.body.id}`, { token })
      assert.strictEqual(seen.status, 200)
      assert.deepStrictEqual(seen.body.dag_definition, simpleDag())
      const history = yield* versionsOf(token, shared.body.id)
      assert.deepStrictEqual(history.map((v) => [v.number, v.active]), [[1, true]])
      assert.strictEqual((yield* http("PATCH", `/api/v1/workflow/workflows/${shared.body.id}`, { token, body: { name: "mine" } })).status, 403)
      assert.strictEqual((yield* publish(token, shared.body.id)).status, 403)
      assert.strictEqual((yield* http("POST", `/api/v1/ai-employees/${shared.body.id}/versions/1/revert`, { token })).status, 403)
      assert.strictEqual((yield* http("PATCH", `/api/v1/workflow/workflows/${shared.body.id}/llm-config`, { token, body: { llm_mode: "ALL" } })).status, 403)
      // The source keeps changing on its own.
      yield* saveDag(admin, w.id, simpleDag("newer"))
      yield* publish(admin, w.id)
      assert.deepStrictEqual((yield* getWorkflow(token, shared.body.id)).dag_definition, simpleDag())

      const sys = yield* createMember(admin, "system_admin")
      const sysToken = yield* loginToken(sys.email, sys.password)
      const elsewhere = yield* http("POST", `/api/v1/ai-employees/${w.id}/share`, { token: sysToken, body: { target_tenant_id: target.id } })
      assert.strictEqual(elsewhere.status, 404)
      const builder = yield* createMember(admin, "builder")
      const bToken = yield* loginToken(builder.email, builder.password)
      assert.strictEqual((yield* http("POST", `/api/v1/ai-employees/${w.id}/share`, { token: bToken, body: { target_tenant_id: target.id } })).status, 403)
    }))
})

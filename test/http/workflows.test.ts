import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { TestPlatformLive } from "../support/TestPlatform.js"
import { createWorkflow, LLM_ENV, simpleDag } from "../support/Workflows.js"

layer(TestPlatformLive({ redis: false, env: LLM_ENV }), { excludeTestServices: true })("AI Employees", (it) => {
  it.effect("create: a draft with an empty DAG and the defaults", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const r = yield* http("POST", "/api/v1/workflow/workflows", {
        token,
        body: { name: "Billing helper", description: "Answers billing questions", category: "Finance" }
      })
      assert.strictEqual(r.status, 201)
      assert.strictEqual(r.body.status, "draft")
      assert.strictEqual(r.body.interaction_type, "form")
      assert.deepStrictEqual(r.body.dag_definition, {})
      assert.strictEqual(r.body.latest_version, 1)
      assert.isUndefined(r.body.active_version)
      assert.strictEqual(r.body.builder_state, "draft")
      assert.strictEqual(r.body.category, "Finance")
      assert.deepStrictEqual(r.body.warnings.map((w: { code: string }) => w.code), ["DAG_EMPTY"])
      const got = yield* http("GET", `/api/v1/workflow/workflows/${r.body.id}`, { token })
      assert.strictEqual(got.status, 200)
      assert.strictEqual(got.body.name, "Billing helper")
      assert.strictEqual((yield* http("POST", "/api/v1/workflow/workflows", { token, body: { description: "x" } })).status, 400)
      assert.strictEqual(
        (yield* http("POST", "/api/v1/workflow/workflows", { token, body: { name: "x", interaction_type: "fax" } })).status,
        400
      )
      assert.strictEqual((yield* http("GET", "/api/v1/workflow/workflows/00000000-0000-4000-8000-000000000000", { token })).status, 404)
    }))

  it.effect("PUT replaces, PATCH changes only the given fields; category set, cleared with \"\", or left", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token, { category: "Sales", icon: "bolt" })
      const put = yield* http("PUT", `/api/v1/workflow/workflows/${w.id}`, {
        token,
        body: { name: "Renamed", dag_definition: simpleDag(), interaction_type: "chat", description: "New" }
      })
      assert.strictEqual(put.status, 200)
      assert.strictEqual(put.body.name, "Renamed")
      assert.strictEqual(put.body.interaction_type, "chat")
      assert.strictEqual(put.body.category, "Sales")
      assert.strictEqual(put.body.latest_version, 2)
      assert.deepStrictEqual(put.body.warnings, [])
      assert.strictEqual((yield* http("PUT", `/api/v1/workflow/workflows/${w.id}`, { token, body: { name: "x" } })).status, 400)
      // interaction_type may be left out of a PUT: it takes its documented default.
      const defaulted = yield* http("PUT", `/api/v1/workflow/workflows/${w.id}`, { token, body: { name: "Renamed", dag_definition: simpleDag() } })
      assert.strictEqual(defaulted.status, 200, defaulted.text)
      assert.strictEqual(defaulted.body.interaction_type, "form")
      yield* http("PUT", `/api/v1/workflow/workflows/${w.id}`, {
        token,
        body: { name: "Renamed", dag_definition: simpleDag(), interaction_type: "chat", description: "New" }
      })
      const patch = yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}`, { token, body: { description: "Only this" } })
      assert.strictEqual(patch.body.description, "Only this")
      assert.strictEqual(patch.body.name, "Renamed")
      assert.strictEqual(patch.body.latest_version, 4)
      assert.strictEqual(patch.body.icon, "bolt")
      const cleared = yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}`, { token, body: { category: "" } })
      assert.isUndefined(cleared.body.category)
      const set = yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}`, { token, body: { category: "Ops" } })
      assert.strictEqual(set.body.category, "Ops")
      const left = yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}`, { token, body: { name: "Again" } })
      assert.strictEqual(left.body.category, "Ops")
    }))

  it.effect("a saved DAG reports warnings and errors without refusing the save", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      const r = yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}`, {
        token,
        body: { dag_definition: { nodes: [{ id: "a", type: "agent" }, { id: "a", type: "agent" }], edges: [{ from: "a", to: "b" }] } }
      })
      assert.strictEqual(r.status, 200)
      const found = r.body.warnings.map((x: { code: string; severity: string }) => `${x.code}:${x.severity}`)
      assert.include(found, "NODE_ID_DUPLICATE:error")
      assert.include(found, "EDGE_UNKNOWN_NODE:error")
      assert.include(found, "NODE_INVALID:error")
      const notObject = yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}`, { token, body: { dag_definition: [1, 2] } })
      assert.strictEqual(notObject.status, 400)
    }))

  it.effect("list: pages, filters, fuzzy q, archived, and next_cursor", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const tenant = yield* createTenant(admin, "list-co")
      const b = yield* createMember(admin, "builder", { tenantId: tenant.id })
      const token = yield* loginToken(b.email, b.password)
      yield* createWorkflow(token, { name: "Invoice reconciler", description: "Matches payments to invoices" })
      yield* createWorkflow(token, { name: "Onboarding guide", interaction_type: "chat" })
      const hidden = yield* createWorkflow(token, { name: "Old bot" })
      for (let i = 0; i < 3; i++) yield* createWorkflow(token, { name: `Filler ${i}` })
      yield* http("DELETE", `/api/v1/workflow/workflows/${hidden.id}`, { token })

      const all = yield* http("GET", "/api/v1/workflow/workflows", { token })
      assert.strictEqual(all.body.total, 5)
      assert.isFalse(all.body.items.some((w: { id: string }) => w.id === hidden.id))
      const archived = yield* http("GET", "/api/v1/workflow/workflows?archived=true", { token })
      assert.deepStrictEqual(archived.body.items.map((w: { id: string }) => w.id), [hidden.id])
      assert.isTrue(archived.body.items[0].archived)
      const chat = yield* http("GET", "/api/v1/workflow/workflows?interaction_type=chat", { token })
      assert.deepStrictEqual(chat.body.items.map((w: { name: string }) => w.name), ["Onboarding guide"])
      const fuzzy = yield* http("GET", "/api/v1/workflow/workflows?q=invoce", { token })
      assert.strictEqual(fuzzy.body.items[0]?.name, "Invoice reconciler")
      const byDescription = yield* http("GET", "/api/v1/workflow/workflows?q=payments", { token })
      assert.strictEqual(byDescription.body.items[0]?.name, "Invoice reconciler")

      const page1 = yield* http("GET", "/api/v1/ai-employees?page_size=2", { token })
      assert.strictEqual(page1.body.items.length, 2)
      assert.isTrue(page1.body.has_more)
      assert.isString(page1.body.next_cursor)
      const page2 = yield* http("GET", `/api/v1/ai-employees?page_size=2&cursor=${page1.body.next_cursor}`, { token })
      assert.strictEqual(page2.body.page, 2)
      const page3 = yield* http("GET", `/api/v1/ai-employees?page_size=2&cursor=${page2.body.next_cursor}`, { token })
      assert.isFalse(page3.body.has_more)
      assert.isNull(page3.body.next_cursor)
      const seen = [...page1.body.items, ...page2.body.items, ...page3.body.items].map((w: { id: string }) => w.id)
      assert.strictEqual(new Set(seen).size, 5)
      assert.strictEqual((yield* http("GET", "/api/v1/ai-employees?cursor=garbage", { token })).status, 422)
      assert.strictEqual((yield* http("GET", "/api/v1/workflow/workflows?page_size=500", { token })).body.page_size, 100)
    }))

  it.effect("archive hides, restore brings back; restoring what is not archived is 404", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      assert.strictEqual((yield* http("POST", `/api/v1/workflow/workflows/${w.id}/restore`, { token })).status, 404)
      assert.strictEqual((yield* http("DELETE", `/api/v1/workflow/workflows/${w.id}`, { token })).status, 204)
      assert.strictEqual((yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}`, { token, body: { name: "x" } })).status, 404)
      const restored = yield* http("POST", `/api/v1/ai-employees/${w.id}/restore`, { token })
      assert.strictEqual(restored.status, 200)
      assert.isFalse(restored.body.archived)
      assert.strictEqual((yield* http("POST", "/api/v1/workflow/workflows/00000000-0000-4000-8000-000000000000/restore", { token })).status, 404)
    }))

  it.effect("config: GET defaults, PUT replaces, PATCH llm-config merges only the LLM fields given", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      const initial = yield* http("GET", `/api/v1/workflow/workflows/${w.id}/config`, { token })
      assert.strictEqual(initial.body.llm_mode, "ALL")
      assert.strictEqual(initial.body.optimization_priority, "AUTO")
      const put = yield* http("PUT", `/api/v1/workflow/workflows/${w.id}/config`, {
        token,
        body: { welcome_message: "Hi there", llm_mode: "SELECTED", selected_model_ids: ["test-model"] }
      })
      assert.strictEqual(put.body.welcome_message, "Hi there")
      assert.strictEqual(put.body.llm_mode, "SELECTED")
      const patched = yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}/llm-config`, {
        token,
        body: { optimization_priority: "CHEAPEST", data_protection_fields: ["ssn"] }
      })
      assert.strictEqual(patched.body.optimization_priority, "CHEAPEST")
      assert.deepStrictEqual(patched.body.data_protection_fields, ["ssn"])
      assert.strictEqual(patched.body.llm_mode, "SELECTED")
      assert.deepStrictEqual(patched.body.selected_model_ids, ["test-model"])
      assert.strictEqual(patched.body.welcome_message, "Hi there")
      const bad = yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}/llm-config`, { token, body: { llm_mode: "SOME" } })
      assert.strictEqual(bad.status, 400)
      const replaced = yield* http("PUT", `/api/v1/ai-employees/${w.id}/config`, { token, body: { llm_mode: "ALL" } })
      assert.isNull(replaced.body.welcome_message)
    }))

  it.effect("templates: listed for the tenant; create-workflow makes an independent draft", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const list = yield* http("GET", "/api/v1/workflow/templates", { token })
      assert.strictEqual(list.body.items.length, 3)
      const triage = list.body.items.find((t: { name: string }) => t.name === "Ticket triage")
      const created = yield* http("POST", `/api/v1/workflow/templates/${triage.id}/create-workflow`, { token })
      assert.strictEqual(created.status, 201)
      assert.strictEqual(created.body.status, "draft")
      assert.deepStrictEqual(created.body.dag_definition, triage.dag_definition)
      assert.strictEqual(created.body.interaction_type, "form")
      assert.deepStrictEqual(created.body.warnings, [])
      const published = yield* http("POST", `/api/v1/workflow/workflows/${created.body.id}/publish`, { token })
      assert.strictEqual(published.status, 200)
      const missing = yield* http("POST", "/api/v1/workflow/templates/00000000-0000-4000-8000-000000000000/create-workflow", { token })
      assert.strictEqual(missing.status, 404)
    }))

  it.effect("clone: a new draft named '<name> (Copy)' unless a name is given", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token, { name: "Source" })
      yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}`, { token, body: { dag_definition: simpleDag() } })
      yield* http("POST", `/api/v1/workflow/workflows/${w.id}/publish`, { token })
      const copy = yield* http("POST", `/api/v1/ai-employees/${w.id}/clone`, { token, body: {} })
      assert.strictEqual(copy.status, 201)
      assert.strictEqual(copy.body.name, "Source (Copy)")
      assert.strictEqual(copy.body.status, "draft")
      assert.strictEqual(copy.body.latest_version, 1)
      assert.deepStrictEqual(copy.body.dag_definition, simpleDag())
      const named = yield* http("POST", `/api/v1/ai-employees/${w.id}/clone`, { token, body: { name: "Twin" } })
      assert.strictEqual(named.body.name, "Twin")
    }))

  it.effect("writes under either path write audit events (ai_employee.* through the alias); roles gate building and reading", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const created = yield* http("POST", "/api/v1/ai-employees", { token: admin, body: { name: "Audited" } })
      assert.strictEqual(created.status, 201)
      yield* http("PATCH", `/api/v1/ai-employees/${created.body.id}`, { token: admin, body: { description: "d" } })
      const events = yield* http("GET", "/api/v1/auth/audit-events?page_size=100", { token: admin })
      const mine = events.body.items.filter((e: { resource_id: string }) => e.resource_id === created.body.id)
      assert.deepStrictEqual(mine.map((e: { action: string }) => e.action).sort(), ["ai_employee.created", "ai_employee.saved"])
      // The same writes through /api/v1/workflow are recorded too: no route writes unrecorded.
      const plain = yield* http("POST", "/api/v1/workflow/workflows", { token: admin, body: { name: "Also audited" } })
      yield* http("PATCH", `/api/v1/workflow/workflows/${plain.body.id}`, { token: admin, body: { description: "d" } })
      yield* http("DELETE", `/api/v1/workflow/workflows/${plain.body.id}`, { token: admin })
      const later = yield* http("GET", "/api/v1/auth/audit-events?page_size=100", { token: admin })
      const theirs = later.body.items.filter((e: { resource_id: string }) => e.resource_id === plain.body.id)
      assert.deepStrictEqual(theirs.map((e: { action: string }) => e.action).sort(), ["workflow.archived", "workflow.created", "workflow.saved"])

      const user = yield* createMember(admin, "user")
      const uToken = yield* loginToken(user.email, user.password)
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/workflows/${created.body.id}`, { token: uToken })).status, 200)
      assert.strictEqual((yield* http("GET", "/api/v1/workflow/workflows", { token: uToken })).status, 200)
      assert.strictEqual((yield* http("POST", "/api/v1/workflow/workflows", { token: uToken, body: { name: "x" } })).status, 403)
      assert.strictEqual(
        (yield* http("PATCH", `/api/v1/workflow/workflows/${created.body.id}`, { token: uToken, body: { name: "x" } })).status,
        403
      )
      const ua = yield* createMember(admin, "user_admin")
      const uaToken = yield* loginToken(ua.email, ua.password)
      assert.strictEqual((yield* http("POST", "/api/v1/workflow/workflows", { token: uaToken, body: { name: "x" } })).status, 403)
      const builder = yield* createMember(admin, "builder")
      const bToken = yield* loginToken(builder.email, builder.password)
      assert.strictEqual((yield* http("POST", "/api/v1/workflow/workflows", { token: bToken, body: { name: "x" } })).status, 201)
      const none = yield* createMember(admin, "no_access")
      const nToken = yield* loginToken(none.email, none.password)
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/workflows/${created.body.id}`, { token: nToken })).status, 403)

      const other = yield* createTenant(admin, "other-aie-co")
      const stranger = yield* createMember(admin, "system_admin", { tenantId: other.id })
      const sToken = yield* loginToken(stranger.email, stranger.password)
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/workflows/${created.body.id}`, { token: sToken })).status, 404)
      assert.strictEqual(
        (yield* http("POST", `/api/v1/workflow/workflows/${created.body.id}/publish`, { token: sToken })).status,
        404
      )
    }))
})

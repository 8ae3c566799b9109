import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { makePdf } from "../support/Documents.js"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive, sleep } from "../support/RunPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"
import { createWorkflow, respondNode } from "../support/Workflows.js"

const kbs = "/api/v1/ingestion/knowledge-bases"
const dag = { nodes: [respondNode("read", "New: {{workflow_input.document.title}} in {{workflow_input.document.folder_path}}")], edges: [] }

const uploadJson = (token: string, kbId: string, title: string, folder: string, content = "Quarterly numbers.") =>
  http("POST", `${kbs}/${kbId}/documents`, { token, body: { title, content, folder_path: folder } })

const uploadFile = (token: string, kbId: string, name: string, type: string, bytes: Uint8Array, folder: string) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(async () => {
      const form = new FormData()
      form.append("folder_path", folder)
      form.append("file", new Blob([bytes], { type }), name)
      const res = await fetch(`${platform.baseUrl}${kbs}/${kbId}/documents`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form })
      return { status: res.status, body: await res.json() as { id: string } }
    }))

const documentRuns = (token: string, workflowId: string) =>
  http("GET", `/api/v1/workflow/workflows/${workflowId}/runs?trigger_type=document&page_size=100`, { token }).pipe(
    Effect.map((r) => r.body.items as ReadonlyArray<{ id: string; status: string }>)
  )

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("document triggers", (it) => {
  it.effect("CRUD, enable/disable, and 409 on an overlapping binding", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const w = yield* createWorkflow(admin)
      const kb = (yield* http("POST", kbs, { token: admin, body: { name: "Contracts" } })).body.id as string
      const other = (yield* http("POST", kbs, { token: admin, body: { name: "Other" } })).body.id as string
      const path = `/api/v1/workflow/workflows/${w.id}/document-triggers`
      const created = yield* http("POST", path, { token: admin, body: { knowledge_base_id: kb, folder_prefix: "finance/" } })
      assert.strictEqual(created.status, 201, created.text)
      assert.deepInclude(created.body, { knowledge_base_id: kb, folder_prefix: "finance/", mime_type_allowlist: [], fire_on: "created", enabled: true })

      const overlap = (body: Record<string, unknown>) => http("POST", path, { token: admin, body: { knowledge_base_id: kb, ...body } })
      // Containing or contained folders, intersecting types and fire_on: 409.
      for (const body of [{}, { folder_prefix: "finance/2024" }, { folder_prefix: "fin" }, { fire_on: "any" }, { mime_type_allowlist: ["text/plain"] }]) {
        const r = yield* overlap(body)
        assert.strictEqual(r.status, 409, JSON.stringify(body))
        assert.strictEqual(r.body.code, "DOCUMENT_TRIGGER_OVERLAP")
      }
      // Disjoint on any one axis: allowed.
      const updated = yield* overlap({ folder_prefix: "finance/", fire_on: "updated" })
      assert.strictEqual(updated.status, 201, updated.text)
      assert.strictEqual((yield* overlap({ folder_prefix: "legal/" })).status, 201)
      assert.strictEqual((yield* http("POST", path, { token: admin, body: { knowledge_base_id: other, folder_prefix: "finance/" } })).status, 201)
      assert.strictEqual((yield* http("POST", path, { token: admin, body: { knowledge_base_id: "00000000-0000-4000-8000-000000000000" } })).status, 404)
      assert.strictEqual((yield* http("POST", path, { token: admin, body: { knowledge_base_id: kb, fire_on: "sometimes" } })).status, 400)

      const listed = yield* http("GET", path, { token: admin })
      assert.strictEqual(listed.body.items.length, 4)
      const one = `${path}/${created.body.id}`
      assert.strictEqual((yield* http("GET", one, { token: admin })).body.id, created.body.id)
      // PUT replaces; overlapping another binding is 409, overlapping only itself is fine.
      const clash = yield* http("PUT", `${path}/${updated.body.id}`, { token: admin, body: { knowledge_base_id: kb, folder_prefix: "finance/" } })
      assert.strictEqual(clash.status, 409)
      const replaced = yield* http("PUT", one, {
        token: admin,
        body: { knowledge_base_id: kb, folder_prefix: "finance/2025/", mime_type_allowlist: ["application/pdf"] }
      })
      assert.strictEqual(replaced.status, 200, replaced.text)
      assert.deepStrictEqual(replaced.body.mime_type_allowlist, ["application/pdf"])
      const disabled = yield* http("POST", `${one}/disable`, { token: admin })
      assert.isFalse(disabled.body.enabled)
      assert.isTrue((yield* http("POST", `${one}/enable`, { token: admin })).body.enabled)

      const user = yield* createMember(admin, "user")
      const userToken = yield* loginToken(user.email, user.password)
      assert.strictEqual((yield* http("GET", path, { token: userToken })).status, 200)
      assert.strictEqual((yield* http("POST", `${one}/disable`, { token: userToken })).status, 403)
      assert.strictEqual((yield* http("DELETE", one, { token: admin })).status, 204)
      assert.strictEqual((yield* http("GET", one, { token: admin })).status, 404)
    }))

  it.effect("a matching upload (JSON or multipart) starts one run per enabled binding, with the document as input", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "noted" }))
      const kb = (yield* http("POST", kbs, { token: admin, body: { name: "Inbox" } })).body.id as string
      const onCreate = yield* publishedWorkflow(admin, dag)
      const onUpdate = yield* publishedWorkflow(admin, dag)
      const pdfOnly = yield* publishedWorkflow(admin, dag)
      const disabled = yield* publishedWorkflow(admin, dag)
      const bind = (workflowId: string, body: Record<string, unknown>) =>
        http("POST", `/api/v1/workflow/workflows/${workflowId}/document-triggers`, { token: admin, body: { knowledge_base_id: kb, ...body } })
      assert.strictEqual((yield* bind(onCreate, { folder_prefix: "finance/" })).status, 201)
      assert.strictEqual((yield* bind(onUpdate, { folder_prefix: "finance", fire_on: "updated" })).status, 201)
      assert.strictEqual((yield* bind(pdfOnly, { mime_type_allowlist: ["application/pdf"], fire_on: "any" })).status, 201)
      assert.strictEqual((yield* bind(disabled, { enabled: false })).status, 201)

      const doc = yield* uploadJson(admin, kb, "Q3 report", "finance/2024")
      assert.strictEqual(doc.status, 201, doc.text)
      const runs = yield* eventually(Effect.map(documentRuns(admin, onCreate), (r) => r.length > 0 ? r : undefined), "the document run")
      const run = yield* eventually(
        Effect.map(http("GET", `/api/v1/workflow/runs/${runs[0].id}`, { token: admin }), (r) => r.body.status === "completed" ? r.body : undefined),
        "the run to complete"
      )
      assert.strictEqual(run.trigger_type, "document")
      assert.deepStrictEqual(run.input_params, {
        document: { id: doc.body.id, knowledge_base_id: kb, title: "Q3 report", folder_path: "finance/2024", mime_type: "text/plain", version: 1 }
      })
      assert.isTrue(model.requests.some((r) => r.messages[0]?.content === "New: Q3 report in finance/2024"))

      // A new version of it fires `updated` bindings only; a document elsewhere fires nothing.
      yield* uploadJson(admin, kb, "Q3 report", "finance/2024", "Restated numbers.")
      yield* eventually(Effect.map(documentRuns(admin, onUpdate), (r) => r.length > 0 ? r : undefined), "the update run")
      yield* uploadJson(admin, kb, "Menu", "canteen")
      // A PDF over multipart fires the PDF binding (which also matches any folder).
      const pdf = yield* uploadFile(admin, kb, "scan.pdf", "application/pdf", makePdf("Invoice 7"), "finance/2024")
      assert.strictEqual(pdf.status, 201)
      yield* sleep(1500)
      assert.strictEqual((yield* documentRuns(admin, onCreate)).length, 2, "Q3 report v1 and scan.pdf")
      assert.strictEqual((yield* documentRuns(admin, onUpdate)).length, 1)
      assert.strictEqual((yield* documentRuns(admin, pdfOnly)).length, 1)
      assert.strictEqual((yield* documentRuns(admin, disabled)).length, 0)
    }))
})

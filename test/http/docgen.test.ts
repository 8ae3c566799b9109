import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { parseSse, waitForStatus } from "../support/Runs.js"
import { type ChatCompletionRequest, ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"

const api = "/api/v1/docgen"
const twoSections = `<h1>Plan</h1><section id="summary"><h2>Summary</h2><p>todo</p></section><section id="details"><h2>Details</h2><p>todo</p></section>`

const create = (token: string, body: Record<string, unknown>) => http("POST", `${api}/documents`, { token, body })

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("document generation", (it) => {
  it.effect("documents: create, list, PATCH (title, metadata merge), soft delete; another user sees nothing; bulk in one transaction", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const a = yield* create(token, { title: "Alpha", content_html: "<p>a</p>", type: "report", metadata: { lang: "en", owner: "ops" } })
      assert.strictEqual(a.status, 201, a.text)
      assert.deepInclude(a.body, { title: "Alpha", version: 1, type: "report", content_html: "<p>a</p>" })
      const b = yield* create(token, { title: "Beta", type: "memo" })
      const patched = yield* http("PATCH", `${api}/documents/${a.body.id}`, { token, body: { title: "Alpha 2", metadata: { owner: "sales", extra: 1 } } })
      assert.deepInclude(patched.body, { title: "Alpha 2", metadata: { lang: "en", owner: "sales", extra: 1 }, version: 1 })
      const listed = yield* http("GET", `${api}/documents?limit=10`, { token })
      assert.deepStrictEqual(listed.body.items.slice(0, 2).map((d: { id: string }) => d.id), [a.body.id, b.body.id], "newest updated_at first")
      assert.notProperty(listed.body.items[0], "content_html")
      assert.property((yield* http("GET", `${api}/documents?include_content=true&type=report`, { token })).body.items[0], "content_html")
      assert.strictEqual((yield* http("GET", `${api}/documents?type=memo`, { token })).body.total, 1)

      const other = yield* createMember(token, "builder")
      const otherToken = yield* loginToken(other.email, other.password)
      assert.strictEqual((yield* http("GET", `${api}/documents/${a.body.id}`, { token: otherToken })).status, 404)
      assert.strictEqual((yield* http("PATCH", `${api}/documents/${a.body.id}`, { token: otherToken, body: { title: "x" } })).status, 404)
      assert.strictEqual((yield* http("GET", `${api}/documents`, { token: otherToken })).body.total, 0)

      const bulk = yield* http("POST", `${api}/documents/bulk`, {
        token,
        body: { title: "Binder", children: [{ title: "Part 1" }, { title: "Part 2", content_html: "<p>2</p>" }] }
      })
      assert.strictEqual(bulk.status, 201, bulk.text)
      assert.deepStrictEqual(bulk.body.children.map((c: { parent_document_id: string }) => c.parent_document_id), [bulk.body.parent.id, bulk.body.parent.id])
      const more = yield* http("POST", `${api}/documents/bulk`, { token, body: { parent_document_id: bulk.body.parent.id, children: [{ title: "Part 3" }] } })
      assert.strictEqual(more.status, 201)
      assert.strictEqual((yield* http("GET", `${api}/documents?parent_document_id=${bulk.body.parent.id}`, { token })).body.total, 3)
      assert.strictEqual(
        (yield* http("POST", `${api}/documents/bulk`, { token: otherToken, body: { parent_document_id: bulk.body.parent.id, children: [{ title: "x" }] } }))
          .status,
        404
      )
      const before = (yield* http("GET", `${api}/documents`, { token })).body.total
      const broken = yield* http("POST", `${api}/documents/bulk`, {
        token,
        body: { title: "Half", children: [{ title: "ok" }, { title: "bad", content_html: "<tr><td>1</td></tr>" }] }
      })
      assert.strictEqual(broken.status, 400)
      assert.strictEqual((yield* http("GET", `${api}/documents`, { token })).body.total, before, "nothing of a refused bulk is stored")

      assert.strictEqual((yield* http("DELETE", `${api}/documents/${b.body.id}`, { token })).status, 204)
      assert.strictEqual((yield* http("GET", `${api}/documents/${b.body.id}`, { token })).status, 404)
    }))

  it.effect("update rules: a section is replaced whole, HTML is sanitised, lost table rows store nothing; versions, manual save with its check, restore", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const doc = (yield* create(token, { title: "Plan", content_html: twoSections })).body
      const path = `${api}/documents/${doc.id}`
      const section = yield* http("PATCH", path, {
        token,
        body: {
          target_section_id: "summary",
          content_html: `<h2>Summary</h2><p>Ship in Q3 <img src="x" onerror="alert(1)"></p><script>steal()</script><a href="javascript:alert(1)">x</a>`,
          change_description: "summary"
        }
      })
      assert.strictEqual(section.status, 200, section.text)
      assert.strictEqual(section.body.version, 2)
      assert.include(section.body.content_html, `<section id="summary"><h2>Summary</h2><p>Ship in Q3 <img src="x" /></p><a>x</a></section>`)
      assert.include(section.body.content_html, `<section id="details"><h2>Details</h2><p>todo</p></section>`, "the other section is untouched")
      assert.notInclude(section.body.content_html, "todo</p></section><section id=\"details\"><h2>Details</h2><p>todo</p></section><section")

      const lost = yield* http("PATCH", path, { token, body: { target_section_id: "details", content_html: "<tr><td>row</td></tr>" } })
      assert.strictEqual(lost.status, 400)
      assert.strictEqual(lost.body.code, "VALIDATION_ERROR")
      assert.include(lost.body.message, "including the <table> element")
      assert.strictEqual((yield* http("GET", path, { token })).body.version, 2, "nothing stored")
      const table = yield* http("PATCH", path, { token, body: { target_section_id: "details", content_html: "<table><tr><td>row</td></tr></table>" } })
      assert.include(table.body.content_html, "<section id=\"details\"><table><tbody><tr><td>row</td></tr></tbody></table></section>")
      const unknown = yield* http("PATCH", path, { token, body: { target_section_id: "nope", content_html: "<p>x</p>" } })
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(unknown.body.code, "SECTION_NOT_FOUND")

      const versions = (yield* http("GET", `${path}/versions`, { token })).body.items
      assert.deepStrictEqual(versions.map((v: { number: number }) => v.number), [3, 2, 1])
      assert.notProperty(versions[0], "content_html")
      assert.strictEqual(versions[1].change_description, "summary")
      assert.strictEqual((yield* http("GET", `${path}/versions/1`, { token })).body.content_html, twoSections)

      // Two saves from the same loaded version race: one wins, the other is told the document moved on.
      const [first, second] = yield* Effect.all([
        http("POST", `${path}/versions`, { token, body: { content_html: "<p>mine</p>", base_version: 3 } }),
        http("POST", `${path}/versions`, { token, body: { content_html: "<p>theirs</p>", base_version: 3 } })
      ], { concurrency: 2 })
      assert.sameMembers([first.status, second.status], [201, 409])
      const winner = first.status === 201 ? "<p>mine</p>" : "<p>theirs</p>"
      assert.strictEqual((yield* http("GET", path, { token })).body.content_html, winner)
      // Concurrent section writes serialise: neither is lost.
      yield* http("POST", `${path}/versions`, { token, body: { content_html: twoSections, base_version: 4 } })
      yield* Effect.all([
        http("PATCH", path, { token, body: { target_section_id: "summary", content_html: "<p>S</p>" } }),
        http("PATCH", path, { token, body: { target_section_id: "details", content_html: "<p>D</p>" } })
      ], { concurrency: 2 })
      const both = (yield* http("GET", path, { token })).body
      assert.include(both.content_html, `<section id="summary"><p>S</p></section>`)
      assert.include(both.content_html, `<section id="details"><p>D</p></section>`)
      assert.strictEqual(both.version, 7)

      const restored = yield* http("POST", `${path}/restore/1`, { token })
      assert.deepInclude(restored.body, { version: 8, content_html: twoSections })
      assert.strictEqual((yield* http("GET", `${path}/versions`, { token })).body.items[0].source, "restore")
    }))

  it.effect("generate: the AI Employee writes two sections through update_document, searching the request's knowledge bases; progress is on the run's stream", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const kb = (yield* http("POST", "/api/v1/ingestion/knowledge-bases", { token, body: { name: "Facts" } })).body.id as string
      yield* http("POST", `/api/v1/ingestion/knowledge-bases/${kb}/documents`, { token, body: { title: "Launch", content: "The launch is in Q3 in Berlin." } })
      const writer = yield* publishedWorkflow(token, {
        nodes: [
          {
            id: "find",
            type: "agent",
            agent_config: {
              agent_type: "search_respond",
              type_version: "v1",
              system_prompt_template: "",
              inputs: { query: "launch" },
              type_config: { answer: false }
            }
          },
          {
            id: "write",
            type: "agent",
            agent_config: {
              agent_type: "custom",
              type_version: "v1",
              system_prompt_template: "Write document {{workflow_input.document.id}} from: {{nodes.find.output.text}}",
              action_ids: ["docgen.update_document"]
            }
          }
        ],
        edges: [{ from: "find", to: "write" }]
      })
      const doc = (yield* create(token, { title: "Launch plan", content_html: twoSections })).body
      const noWorkflow = yield* http("POST", `${api}/documents/${doc.id}/generate`, { token, body: {} })
      assert.strictEqual(noWorkflow.status, 422)
      assert.strictEqual(noWorkflow.body.code, "DOCGEN_NO_WORKFLOW")

      model.setScript((r: ChatCompletionRequest) => {
        const system = String(r.messages[0]?.content ?? "")
        const id = /Write document (\S+)/.exec(system)?.[1] ?? ""
        if (r.messages.some((m) => m.role === "tool")) return { text: "Both sections written." }
        return {
          toolCalls: [
            {
              id: "s1",
              name: "docgen_update_document",
              arguments: JSON.stringify({
                document_id: id,
                target_section_id: "summary",
                content_html: `<h2>Summary</h2><p>${system.includes("Berlin") ? "Launch in Berlin, Q3." : "unknown"}</p>`,
                change_description: "summary"
              })
            },
            {
              id: "s2",
              name: "docgen_update_document",
              arguments: JSON.stringify({
                document_id: id,
                target_section_id: "details",
                content_html: "<h2>Details</h2><table><tr><td>Q3</td><td>Berlin</td></tr></table>",
                change_description: "details"
              })
            }
          ]
        }
      })
      const started = yield* http("POST", `${api}/documents/${doc.id}/generate`, {
        token,
        body: { workflow_id: writer, instructions: "Fill both sections", knowledge_base_ids: [kb] }
      })
      assert.strictEqual(started.status, 202, started.text)
      assert.strictEqual(started.body.workflow_id, writer)
      assert.strictEqual(new URL(started.body.stream_url).pathname, `/api/v1/workflow/runs/${started.body.run_id}/stream`)
      const run = yield* waitForStatus(token, started.body.run_id, ["completed", "failed"])
      assert.strictEqual(run.status, "completed", run.error)
      assert.deepInclude(run.input_params, { instructions: "Fill both sections", knowledge_base_ids: [kb] })
      const written = (yield* http("GET", `${api}/documents/${doc.id}`, { token })).body
      assert.include(written.content_html, "<section id=\"summary\"><h2>Summary</h2><p>Launch in Berlin, Q3.</p></section>")
      assert.include(written.content_html, "<td>Berlin</td>")
      assert.strictEqual(written.version, 3)
      const versions = (yield* http("GET", `${api}/documents/${doc.id}/versions`, { token })).body.items.slice(0, 2)
      assert.deepStrictEqual(versions.map((v: { source: string; run_id: string }) => [v.source, v.run_id]), [["ai_edit", run.id], ["ai_edit", run.id]])
      const events = parseSse((yield* http("GET", new URL(started.body.stream_url).pathname, { token })).text).map((e) => e.data.type)
      assert.strictEqual(events.filter((t) => t === "tool_called").length, 2)
      assert.strictEqual(events.at(-1), "run_completed")
    }))

  it.effect("comments: threads anchored to a section, replies, resolve and reopen, soft-deleted replies, thread deletion, the batch list", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const doc = (yield* create(token, { title: "Reviewed", content_html: twoSections })).body
      const threads = `${api}/documents/${doc.id}/comments/threads`
      const t = yield* http("POST", threads, { token, body: { content: "Is Q3 firm?", anchor: { section_id: "summary", quote: "todo" } } })
      assert.strictEqual(t.status, 201, t.text)
      assert.deepInclude(t.body, { status: "open", anchor: { section_id: "summary", quote: "todo" } })
      const replied = yield* http("POST", `${threads}/${t.body.id}/replies`, { token, body: { content: "Yes." } })
      assert.deepStrictEqual(replied.body.comments.map((c: { content: string }) => c.content), ["Is Q3 firm?", "Yes."])
      const replyId = replied.body.comments[1].id
      assert.strictEqual(
        (yield* http("PATCH", `${threads}/${t.body.id}/replies/${replyId}`, { token, body: { content: "Yes, firm." } })).body.comments[1].content,
        "Yes, firm."
      )
      const resolved = yield* http("PATCH", `${threads}/${t.body.id}`, { token, body: { status: "resolved" } })
      assert.strictEqual(resolved.body.status, "resolved")
      assert.isString(resolved.body.resolved_at)
      assert.strictEqual((yield* http("PATCH", `${threads}/${t.body.id}`, { token, body: { status: "open" } })).body.resolved_at, null)
      assert.strictEqual((yield* http("DELETE", `${threads}/${t.body.id}/replies/${replyId}`, { token })).status, 204)
      const after = (yield* http("GET", threads, { token })).body.items[0].comments[1]
      assert.deepInclude(after, { deleted: true, content: "" })
      const second = (yield* create(token, { title: "Other" })).body
      yield* http("POST", `${api}/documents/${second.id}/comments/threads`, { token, body: { content: "Title?" } })
      const batch = yield* http("GET", `${api}/comments/threads?document_ids=${doc.id},${second.id}`, { token })
      assert.strictEqual(batch.body.items.length, 2)
      assert.strictEqual((yield* http("DELETE", `${threads}/${t.body.id}`, { token })).status, 204)
      assert.strictEqual((yield* http("GET", threads, { token })).body.items.length, 0)
    }))

  it.effect("export: html is a durable job with a download for its owner; pdf and pptx are 501", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const platform = yield* TestPlatform
      const first = (yield* create(token, { title: "First", content_html: "<p>one</p>" })).body
      const second = (yield* create(token, { title: "Second", content_html: "<p>two</p>" })).body
      const job = yield* http("POST", `${api}/export`, { token, body: { document_ids: [second.id, first.id], format: "html" } })
      assert.strictEqual(job.status, 202, job.text)
      const done = yield* eventually(
        Effect.map(http("GET", `${api}/export/${job.body.id}`, { token }), (r) => r.body.status === "complete" ? r.body : undefined),
        "the export"
      )
      const file = yield* http("GET", new URL(done.download_url).pathname, { token })
      assert.strictEqual(file.status, 200)
      assert.include(file.headers.get("content-type") ?? "", "text/html")
      // Tenant HTML runs no script wherever it is opened, and the download is a download.
      assert.include(file.headers.get("content-security-policy") ?? "", "default-src 'none'")
      assert.include(file.headers.get("content-security-policy") ?? "", "sandbox")
      assert.strictEqual(file.headers.get("x-content-type-options"), "nosniff")
      assert.match(file.headers.get("content-disposition") ?? "", /^attachment; filename="export-[0-9a-f-]+\.html"$/)
      assert.isBelow(file.text.indexOf("<h1>Second</h1>"), file.text.indexOf("<h1>First</h1>"), "in the requested order")
      assert.include(file.text, "<p>two</p>")
      const other = yield* createMember(token, "user")
      assert.strictEqual((yield* http("GET", `${api}/export/${job.body.id}`, { token: yield* loginToken(other.email, other.password) })).status, 404)
      // Downloads expire: an hour after the export, the file is gone.
      yield* Effect.promise(async () => {
        const client = new pg.Client({ connectionString: platform.databaseUrl })
        await client.connect()
        await client.query("UPDATE docgen_exports SET expires_at = now() - interval '1 second' WHERE id = $1", [job.body.id]).finally(() => client.end())
      })
      assert.strictEqual((yield* http("GET", new URL(done.download_url).pathname, { token })).status, 404)
      for (const format of ["pdf", "pptx"]) {
        const refused = yield* http("POST", `${api}/export`, { token, body: { document_ids: [first.id], format } })
        assert.strictEqual(refused.status, 501)
        assert.strictEqual(refused.body.code, "NOT_IMPLEMENTED")
      }
    }))

  it.effect("the inline assistant: edit answers with replacement_text, qa about the document, document-less Q&A searches the AI Employee's knowledge bases", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const doc = (yield* create(token, { title: "Memo", content_html: "<p>The budget is 10k.</p>" })).body
      const sessions = `${api}/documents/${doc.id}/chat/sessions`
      const session = yield* http("POST", sessions, { token, body: {} })
      assert.strictEqual(session.status, 201, session.text)
      model.setScript((r: ChatCompletionRequest) => {
        const system = String(r.messages[0]?.content ?? "")
        if (system.startsWith("You edit part of a document")) {
          return { text: JSON.stringify({ reply: "Made it bold.", replacement_text: "<p><b>The budget is 10k.</b></p>" }) }
        }
        if (system.includes("The budget is 10k")) return { text: "The budget is 10k." }
        return { text: system.includes("[1] Travel policy") ? "Economy class [1]." : "I do not know." }
      })
      const edited = yield* http("POST", `${sessions}/${session.body.id}/messages`, {
        token,
        body: { content: "Make it bold", mode: "edit", selected_html: "<p>The budget is 10k.</p>" }
      })
      assert.strictEqual(edited.status, 201, edited.text)
      assert.deepInclude(edited.body.reply, { role: "assistant", content: "Made it bold.", replacement_text: "<p><b>The budget is 10k.</b></p>", mode: "edit" })
      const asked = yield* http("POST", `${sessions}/${session.body.id}/messages`, { token, body: { content: "What is the budget?" } })
      assert.strictEqual(asked.body.reply.content, "The budget is 10k.")
      assert.strictEqual((yield* http("GET", `${sessions}/${session.body.id}/messages`, { token })).body.items.length, 4)
      assert.strictEqual((yield* http("PATCH", `${sessions}/${session.body.id}`, { token, body: { title: "Budget" } })).body.title, "Budget")

      const kb = (yield* http("POST", "/api/v1/ingestion/knowledge-bases", { token, body: { name: "Policies" } })).body.id as string
      yield* http("POST", `/api/v1/ingestion/knowledge-bases/${kb}/documents`, {
        token,
        body: { title: "Travel policy", content: "Flights are booked in economy class." }
      })
      const w = yield* http("POST", "/api/v1/workflow/workflows", { token, body: { name: "Policy bot" } })
      yield* http("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { token, body: { knowledge_base_ids: [kb] } })
      const qa = yield* http("POST", `${api}/chat/sessions`, { token, body: { workflow_id: w.body.id } })
      assert.strictEqual(qa.status, 201, qa.text)
      const answer = yield* http("POST", `${api}/chat/sessions/${qa.body.id}/messages`, { token, body: { content: "Which class do we fly?", mode: "qa" } })
      assert.strictEqual(answer.body.reply.content, "Economy class [1].")
      assert.strictEqual(answer.body.reply.sources[0].title, "Travel policy")
      assert.strictEqual((yield* http("GET", `${api}/chat/sessions`, { token })).body.items.length, 1)
      assert.strictEqual((yield* http("DELETE", `${api}/chat/sessions/${qa.body.id}`, { token })).status, 204)
    }))

  it.effect("outline from an HTML outline or markdown (the AI path is 501); section profiles and their classification", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const manual = yield* http("POST", `${api}/generate-document-outline`, {
        token,
        body: { input_type: "MANUAL", content: "<h1>Plan</h1><ul><li>Goals<ul><li>Revenue</li></ul></li><li>Risks</li></ul><h1>Budget</h1>" }
      })
      assert.strictEqual(manual.status, 200, manual.text)
      assert.deepStrictEqual(JSON.parse(JSON.stringify(manual.body.sections, (k, v) => (k === "level" ? undefined : v))), [
        {
          id: "plan",
          title: "Plan",
          children: [{ id: "goals", title: "Goals", children: [{ id: "revenue", title: "Revenue", children: [] }] }, {
            id: "risks",
            title: "Risks",
            children: []
          }]
        },
        { id: "budget", title: "Budget", children: [] }
      ])
      const upload = yield* http("POST", `${api}/generate-document-outline`, {
        token,
        body: { input_type: "UPLOAD", content: "# Intro\n## Scope\n- In\n- Out\n# Plan" }
      })
      assert.deepStrictEqual(upload.body.sections.map((s: { title: string }) => s.title), ["Intro", "Plan"])
      assert.deepStrictEqual(upload.body.sections[0].children[0].children.map((s: { title: string }) => s.title), ["In", "Out"])
      const ai = yield* http("POST", `${api}/generate-document-outline`, { token, body: { input_type: "AI", content: "anything" } })
      assert.strictEqual(ai.status, 501)

      const risk = yield* http("POST", `${api}/section-profiles`, { token, body: { name: "Risk", description: "Risks and mitigations", keywords: ["risk"] } })
      assert.strictEqual(risk.status, 201, risk.text)
      yield* http("POST", `${api}/section-profiles`, { token, body: { name: "Finance", description: "Money" } })
      assert.strictEqual(
        (yield* http("PATCH", `${api}/section-profiles/${risk.body.id}`, { token, body: { instructions: "List each risk" } })).body.instructions,
        "List each risk"
      )
      assert.strictEqual((yield* http("GET", `${api}/section-profiles`, { token })).body.items.length, 2)
      model.setScript(() => ({
        text: JSON.stringify({
          items: [{ section_title: "Known risks", profile: "Risk" }, { section_title: "Cost", profile: "Finance" }, { section_title: "Thanks", profile: null }]
        })
      }))
      const classified = yield* http("POST", `${api}/section-profiles/classify`, { token, body: { section_titles: ["Known risks", "Cost", "Thanks"] } })
      assert.deepStrictEqual(classified.body.items.map((i: { profile_name: string | null }) => i.profile_name), ["Risk", "Finance", null])
      assert.strictEqual(classified.body.items[0].profile_id, risk.body.id)
      assert.strictEqual((yield* http("DELETE", `${api}/section-profiles/${risk.body.id}`, { token })).status, 204)
      assert.strictEqual((yield* http("GET", `${api}/section-profiles/${risk.body.id}`, { token })).status, 404)
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { corpus, queries } from "../support/Corpus.js"
import { makeDocx, makePdf } from "../support/Documents.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"
import { getWorkflow, publish, saveDag } from "../support/Workflows.js"

const base = "/api/v1/ingestion/knowledge-bases"

const upload = (token: string, kbId: string, name: string, type: string, bytes: Uint8Array, folder = "/uploads") =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(async () => {
      const form = new FormData()
      form.append("folder_path", folder)
      form.append("file", new Blob([bytes], { type }), name)
      const res = await fetch(`${platform.baseUrl}${base}/${kbId}/documents`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: form
      })
      return { status: res.status, body: await res.json() as Record<string, unknown> }
    }))

const createKb = (token: string, name: string) =>
  http("POST", base, { token, body: { name, description: `${name} docs` } }).pipe(Effect.map((r) => r.body.id as string))

const addText = (token: string, kbId: string, title: string, content: string, folder_path = "/") =>
  http("POST", `${base}/${kbId}/documents`, { token, body: { title, content, folder_path } })

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("knowledge bases", (it) => {
  it.effect("CRUD of knowledge bases and JSON documents, with folders and versions", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const kb = yield* createKb(token, "Handbook")
      const doc = yield* addText(token, kb, "Intro", "Welcome to the handbook.", "/general")
      assert.strictEqual(doc.status, 201)
      assert.strictEqual(doc.body.version, 1)
      assert.strictEqual(doc.body.chunk_count, 1)
      const v2 = yield* addText(token, kb, "Intro", "Welcome to the new handbook.", "/general")
      assert.strictEqual(v2.body.id, doc.body.id)
      assert.strictEqual(v2.body.version, 2)
      yield* addText(token, kb, "Other", "Elsewhere.", "/misc")
      const list = yield* http("GET", `${base}/${kb}/documents?folder_prefix=/gen`, { token })
      assert.deepStrictEqual(list.body.items.map((d: { title: string }) => d.title), ["Intro"])
      const got = yield* http("GET", `${base}/${kb}/documents/${doc.body.id}`, { token })
      assert.strictEqual(got.body.content, "Welcome to the new handbook.")
      const kbView = yield* http("GET", `${base}/${kb}`, { token })
      assert.strictEqual(kbView.body.document_count, 2)
      const patched = yield* http("PATCH", `${base}/${kb}`, { token, body: { name: "Company handbook" } })
      assert.strictEqual(patched.body.name, "Company handbook")
      assert.strictEqual((yield* http("DELETE", `${base}/${kb}/documents/${doc.body.id}`, { token })).status, 204)
      assert.strictEqual((yield* http("GET", `${base}/${kb}/documents/${doc.body.id}`, { token })).status, 404)
      assert.strictEqual((yield* http("DELETE", `${base}/${kb}`, { token })).status, 204)
      assert.strictEqual((yield* http("GET", `${base}/${kb}`, { token })).status, 404)
    }))

  it.effect("folder paths are matched in one canonical form whichever way they are written; the sent form is shown", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const kb = yield* createKb(token, "Folders")
      const stored = yield* addText(token, kb, "Budget", "Numbers for the year.", "finance/2024")
      assert.strictEqual(stored.body.folder_path, "finance/2024", "what the client sent stays visible")
      yield* addText(token, kb, "Trailing", "Slash at the end.", "/finance/2025/")
      yield* addText(token, kb, "Elsewhere", "Not finance.", "/financial")
      const titles = (prefix: string) =>
        http("GET", `${base}/${kb}/documents?folder_prefix=${encodeURIComponent(prefix)}`, { token }).pipe(
          Effect.map((r) => r.body.items.map((d: { title: string }) => d.title).sort())
        )
      for (const prefix of ["finance/2024", "/finance/2024", "finance/2024/"]) {
        assert.deepStrictEqual(yield* titles(prefix), ["Budget"], prefix)
      }
      assert.deepStrictEqual(yield* titles("finance/"), ["Budget", "Trailing"], "a folder and what is under it")
      assert.deepStrictEqual(yield* titles("/financ"), ["Budget", "Elsewhere", "Trailing"], "a plain prefix")
      assert.deepStrictEqual(yield* titles("/finance"), ["Budget", "Trailing"])
      assert.deepStrictEqual(yield* titles("finance/2025"), ["Trailing"])
      // The same folder written another way is the same document: a new version.
      const again = yield* addText(token, kb, "Budget", "Revised numbers.", "/finance//2024/")
      assert.strictEqual(again.body.id, stored.body.id)
      assert.strictEqual(again.body.version, 2)
    }))

  it.effect("uploads of text, markdown, HTML, CSV, DOCX and PDF are extracted and searchable", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const kb = yield* createKb(token, "Files")
      const enc = (s: string) => new TextEncoder().encode(s)
      const files: Array<[string, string, Uint8Array, string]> = [
        ["notes.txt", "text/plain", enc("Plain text mentions the aardvark."), "aardvark"],
        ["guide.md", "text/markdown", enc("# Guide\n\nMarkdown mentions the **bison**."), "bison"],
        [
          "page.html",
          "text/html",
          enc("<html><body><h1>Page</h1><p>HTML mentions the <b>chinchilla</b>.</p><script>var x</script></body></html>"),
          "chinchilla"
        ],
        ["table.csv", "text/csv", enc("animal,habitat\ndingo,australia\n"), "dingo"],
        [
          "report.docx",
          "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
          yield* Effect.promise(() => makeDocx(["Word mentions the echidna."])),
          "echidna"
        ],
        ["scan.pdf", "application/pdf", makePdf("PDF mentions the flamingo"), "flamingo"]
      ]
      for (const [name, type, bytes, word] of files) {
        const r = yield* upload(token, kb, name, type, bytes)
        assert.strictEqual(r.status, 201, `${name}: ${JSON.stringify(r.body)}`)
        assert.strictEqual(r.body.mime_type, type)
        assert.strictEqual(r.body.folder_path, "/uploads")
        const doc = yield* http("GET", `${base}/${kb}/documents/${r.body.id}`, { token })
        assert.include((doc.body.content as string).toLowerCase(), word, name)
        assert.notInclude(doc.body.content, "<b>")
        const hits = yield* http("POST", `${base}/${kb}/search`, { token, body: { query: word } })
        assert.strictEqual(hits.body.items[0]?.document_id, r.body.id, `search for ${word}`)
      }
      const bad = yield* upload(token, kb, "image.png", "image/png", new Uint8Array([1, 2, 3]))
      assert.strictEqual(bad.status, 400)
      assert.strictEqual(bad.body.code, "UNSUPPORTED_DOCUMENT")
      const broken = yield* upload(token, kb, "broken.pdf", "application/pdf", enc("not a pdf"))
      assert.strictEqual(broken.status, 400)
    }))

  it.effect("retrieval quality: for each of a dozen queries the right document ranks first", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const kb = yield* createKb(token, "Corpus")
      for (const [title, content] of corpus) assert.strictEqual((yield* addText(token, kb, title, content)).status, 201)
      for (const [query, expected] of queries) {
        const r = yield* http("POST", `${base}/${kb}/search`, { token, body: { query, top_k: 3 } })
        assert.strictEqual(r.body.items[0]?.title, expected, `"${query}" -> ${JSON.stringify(r.body.items.map((i: { title: string }) => i.title))}`)
        assert.isAbove(r.body.items[0].score, 0)
      }
      const limited = yield* http("POST", `${base}/${kb}/search`, { token, body: { query: "policy days", top_k: 1 } })
      assert.strictEqual(limited.body.items.length, 1)
      const strict = yield* http("POST", `${base}/${kb}/search`, { token, body: { query: "policy days", min_score: 0.99 } })
      assert.strictEqual(strict.body.items.length, 0)
    }))

  it.effect("search_respond answers from uploaded documents with citations", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "You can get a refund within 30 days [1]." }))
      const kb = yield* createKb(token, "Support")
      for (const [title, content] of corpus.slice(0, 4)) yield* addText(token, kb, title, content)
      const r = yield* http("POST", "/api/v1/agent/agents/test-execute", {
        token,
        body: {
          agent_config: { agent_type: "search_respond", system_prompt_template: "Answer support questions." },
          inputs: { query: "can I get a refund" },
          knowledge_bases: [kb]
        }
      })
      assert.strictEqual(r.body.status, "completed", JSON.stringify(r.body))
      assert.strictEqual(r.body.output.text, "You can get a refund within 30 days [1].")
      assert.strictEqual(r.body.output.citations[0].title, "Refund policy")
      assert.isString(r.body.output.citations[0].chunk_id)
      assert.include(model.requests.at(-1)!.messages[0].content!, "Refunds go back to the original payment method")
    }))

  it.effect("publish snapshots the knowledge-base set; document-diff compares; revert brings the content back", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const kb = yield* createKb(token, "Versioned")
      const first = yield* addText(token, kb, "Policy", "The old rule applies.")
      const dag = { nodes: [{ id: "a", type: "agent", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "x" } }] }
      const id = yield* publishedWorkflow(token, dag)
      yield* http("PATCH", `/api/v1/workflow/workflows/${id}`, { token, body: { knowledge_base_ids: [kb] } })
      const p1 = yield* publish(token, id)
      assert.deepStrictEqual(p1.body.knowledge_base_snapshot[0].documents.map((d: { document_id: string }) => d.document_id), [first.body.id])
      yield* addText(token, kb, "Policy", "The new rule applies.")
      const added = yield* addText(token, kb, "Extra", "Something more.")
      const p2 = yield* publish(token, id)
      const diff = yield* http("GET", `/api/v1/ai-employees/${id}/versions/${p1.body.number}/document-diff?compare_to=${p2.body.number}`, { token })
      assert.deepStrictEqual(diff.body.added.map((d: { document_id: string }) => d.document_id), [added.body.id])
      assert.deepStrictEqual(diff.body.changed.map((d: { document_id: string }) => d.document_id), [first.body.id])
      assert.deepStrictEqual(diff.body.removed, [])

      const reverted = yield* http("POST", `/api/v1/ai-employees/${id}/versions/${p1.body.number}/revert`, { token })
      assert.strictEqual(reverted.status, 200)
      // The live knowledge base keeps its content until the reverted draft is published.
      assert.strictEqual((yield* http("GET", `${base}/${kb}/documents/${first.body.id}`, { token })).body.content, "The new rule applies.")
      const p3 = yield* publish(token, id)
      assert.strictEqual(p3.body.data_revert_dispatch, "ok")
      assert.strictEqual((yield* http("GET", `${base}/${kb}/documents/${first.body.id}`, { token })).body.content, "The old rule applies.")
      assert.strictEqual((yield* http("GET", `${base}/${kb}/documents/${added.body.id}`, { token })).status, 404)
      const search = yield* http("POST", `${base}/${kb}/search`, { token, body: { query: "old rule" } })
      assert.strictEqual(search.body.items[0]?.document_id, first.body.id)
      assert.strictEqual((yield* getWorkflow(token, id)).builder_state, "published")
      void saveDag
    }))
})

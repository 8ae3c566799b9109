import { assert, layer } from "@effect/vitest"
import { Document as DocxDocument, Packer, Paragraph, TextRun } from "docx"
import { Effect } from "effect"
import PptxGenJSModule from "pptxgenjs"
import { adminToken, createMember } from "../support/Fixtures.js"
import { docxWithLink, upload } from "../support/HostileFiles.js"
import { http, type Json, loginToken } from "../support/Http.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { TestPlatform } from "../support/TestPlatform.js"

// Document generation's templates (split from docgen.test.ts): uploads recognised by content,
// rendered safely, thumbnailed, and their slides edited.

const api = "/api/v1/docgen"

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("document templates", (it) => {
  it.effect("templates: a DOCX hyperlink to javascript: is no link in the rendering, served with a policy that runs no script; no_access reads nothing", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const uploaded = yield* upload(`${api}/templates/upload`, token, docxWithLink("javascript:alert(document.cookie)"), "letter.docx")
      assert.strictEqual(uploaded.status, 201, uploaded.text)
      const html = yield* http("GET", `${api}/templates/${uploaded.body?.id}/html`, { token })
      assert.strictEqual(html.status, 200)
      assert.include(html.text, "click me")
      assert.notInclude(html.text.toLowerCase(), "javascript:")
      assert.include(html.headers.get("content-security-policy") ?? "", "default-src 'none'")
      assert.strictEqual(html.headers.get("x-content-type-options"), "nosniff")
      const safe = yield* upload(`${api}/templates/upload`, token, docxWithLink("https://example.com/terms"), "terms.docx")
      assert.include((yield* http("GET", `${api}/templates/${safe.body?.id}/html`, { token })).text, `href="https://example.com/terms"`)

      const nobody = yield* createMember(token, "no_access")
      const nobodyToken = yield* loginToken(nobody.email, nobody.password)
      for (const part of ["html", "thumbnail"]) {
        const refused = yield* http("GET", `${api}/templates/${uploaded.body?.id}/${part}`, { token: nobodyToken })
        assert.strictEqual(refused.status, 403, `${part}: ${refused.text}`)
      }
    }))

  it.effect("templates: DOCX and PPTX recognised by content, rendered, thumbnailed, defaulted, duplicated; slides listed, edited, reordered, deleted", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const platform = yield* TestPlatform
      const uploadTemplate = (bytes: Uint8Array, filename: string, fields: Record<string, string> = {}) =>
        Effect.promise(async () => {
          const form = new FormData()
          for (const [k, v] of Object.entries(fields)) form.append(k, v)
          form.append("file", new Blob([bytes]), filename)
          const res = await fetch(`${platform.baseUrl}${api}/templates/upload`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form })
          return { status: res.status, body: await res.json() as Record<string, Json> }
        })
      const docxBytes = yield* Effect.promise(() =>
        Packer.toBuffer(
          new DocxDocument({
            sections: [{
              children: [new Paragraph({ children: [new TextRun("Dear {{name}},")] }), new Paragraph({ children: [new TextRun("Welcome to {{ company }}.")] })]
            }]
          })
        )
      )
      // pptxgenjs ships CommonJS typed as an ES module: its class is the default export's default at run time under NodeNext typing.
      const PptxGenJS = ((PptxGenJSModule as unknown as { default?: typeof PptxGenJSModule }).default ?? PptxGenJSModule) as unknown as new() => {
        addSlide: () => { addText: (text: string, options: Record<string, number>) => void }
        write: (options: { outputType: "nodebuffer" }) => Promise<unknown>
      }
      const deck = new PptxGenJS()
      for (const title of ["Intro", "Numbers", "Next steps"]) deck.addSlide().addText(`${title} for {{client}}`, { x: 1, y: 1, w: 8, h: 1 })
      const pptxBytes = (yield* Effect.promise(() => deck.write({ outputType: "nodebuffer" }))) as Uint8Array

      const docx = yield* uploadTemplate(new Uint8Array(docxBytes), "letter.bin", { name: "Letter" })
      assert.strictEqual(docx.status, 201, JSON.stringify(docx.body))
      assert.deepInclude(docx.body, { kind: "docx", name: "Letter", mode: "html_rewrite", slide_count: null })
      assert.deepStrictEqual([...docx.body.slots].sort(), ["company", "name"])
      const html = yield* http("GET", `${api}/templates/${docx.body.id}/html`, { token })
      assert.include(html.headers.get("content-type") ?? "", "text/html")
      assert.include(html.text, "Dear {{name}},")
      const thumb = yield* Effect.promise(() =>
        fetch(`${platform.baseUrl}${api}/templates/${docx.body.id}/thumbnail`, { headers: { authorization: `Bearer ${token}` } })
      )
      assert.strictEqual(thumb.headers.get("content-type"), "image/png")
      assert.deepStrictEqual([...new Uint8Array(yield* Effect.promise(() => thumb.arrayBuffer())).slice(0, 4)], [0x89, 0x50, 0x4e, 0x47])
      // Over the size limit (the request body limit, 10 MiB by default, comes first): 413.
      const huge = new Uint8Array(11 * 1024 * 1024)
      huge.set([0x50, 0x4b, 0x03, 0x04])
      assert.strictEqual((yield* uploadTemplate(huge, "huge.pptx")).status, 413)
      const notOffice = yield* uploadTemplate(new TextEncoder().encode("just text"), "fake.docx")
      assert.strictEqual(notOffice.status, 400)
      assert.strictEqual(notOffice.body.code, "UNSUPPORTED_TEMPLATE")

      const pptx = yield* uploadTemplate(pptxBytes, "deck.pptx")
      assert.strictEqual(pptx.status, 201, JSON.stringify(pptx.body))
      assert.deepInclude(pptx.body, { kind: "pptx", name: "deck", slide_count: 3, mode: "slot_fill", slots: ["client"] })
      const slides = `${api}/templates/${pptx.body.id}/slides`
      assert.deepStrictEqual((yield* http("GET", slides, { token })).body.items.map((s: { title: string }) => s.title), [
        "Intro for {{client}}",
        "Numbers for {{client}}",
        "Next steps for {{client}}"
      ])
      const edited = yield* http("PATCH", `${slides}/2`, { token, body: { texts: ["Figures for {{client}} & co"] } })
      assert.strictEqual(edited.body.title, "Figures for {{client}} & co")
      const reordered = yield* http("PUT", `${slides}/order`, { token, body: { order: [3, 1, 2] } })
      assert.deepStrictEqual(reordered.body.items.map((s: { title: string }) => s.title.split(" ")[0]), ["Next", "Intro", "Figures"])
      assert.strictEqual((yield* http("PUT", `${slides}/order`, { token, body: { order: [1, 1, 2] } })).body.code, "SLIDE_ORDER_INVALID")
      assert.strictEqual((yield* http("DELETE", `${slides}/1`, { token })).status, 204)
      assert.deepStrictEqual((yield* http("GET", slides, { token })).body.items.map((s: { title: string }) => s.title.split(" ")[0]), ["Intro", "Figures"])
      assert.strictEqual((yield* http("GET", `${api}/templates/${pptx.body.id}`, { token })).body.slide_count, 2)
      assert.strictEqual((yield* http("GET", `${slides}/9`, { token })).status, 404)
      assert.strictEqual((yield* http("GET", `${api}/templates/${docx.body.id}/slides`, { token })).body.code, "NOT_A_PRESENTATION")

      const first = yield* http("PUT", `${api}/templates/${docx.body.id}/set-default`, { token })
      assert.isTrue(first.body.is_default)
      yield* http("PUT", `${api}/templates/${pptx.body.id}/set-default`, { token })
      const listed = (yield* http("GET", `${api}/templates`, { token })).body.items
      assert.deepStrictEqual(
        listed.filter((t: { is_default: boolean }) => t.is_default).map((t: { id: string }) => t.id),
        [pptx.body.id],
        "one default per workspace"
      )
      const copy = yield* http("POST", `${api}/templates/${docx.body.id}/duplicate`, { token })
      assert.deepInclude(copy.body, { name: "Letter (Copy)", kind: "docx", is_default: false })
      assert.strictEqual((yield* http("POST", `${api}/templates/${copy.body.id}/re-extract`, { token })).body.slots.length, 2)
      assert.strictEqual((yield* http("PATCH", `${api}/templates/${copy.body.id}`, { token, body: { mode: "slot_fill" } })).body.mode, "slot_fill")
      const htmlTemplate = yield* http("POST", `${api}/templates`, { token, body: { name: "Plain", html: "<h1>{{title}}</h1><script>x()</script>" } })
      assert.deepInclude(htmlTemplate.body, { kind: "html", slots: ["title"] })
      assert.notInclude((yield* http("GET", `${api}/templates/${htmlTemplate.body.id}/html`, { token })).text, "<script>")
      assert.strictEqual((yield* http("DELETE", `${api}/templates/${copy.body.id}`, { token })).status, 204)
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { docxBomb, manyEntries, openApiCircular, openApiRefBomb, pptxSlideBomb, upload, withLoopLag } from "../support/HostileFiles.js"
import { http, loginToken } from "../support/Http.js"
import { TestPlatformLive } from "../support/TestPlatform.js"

// Issue 31, point 2: no work on tenant input runs on the event loop that serves requests. Each
// hostile input below is answered with a clear 4xx within its limits while this process's event
// loop (it serves the platform) is never stalled by it, and nothing of it is left behind. On the
// event loop these inputs stall it for seconds (13-22 s before the worker pool); off it the delay
// is scheduling noise, tens of ms, more on a busy machine: 1 s tells the two apart without timing
// the machine (bench/hostile.ts measures the figures: /health p99 6-21 ms under each bomb).
const MAX_LAG_MS = 1_000

const integrations = "/api/v1/integrations"
const docgen = "/api/v1/docgen"

layer(TestPlatformLive({ env: { WORKER_THREADS: "2" } }), { excludeTestServices: true, timeout: "120 seconds" })("resource isolation: hostile input", (it) => {
  it.effect("an OpenAPI document of 2^20 schemas by $ref is refused (422) without expanding it; a circular one imports", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const { result: bomb, maxLagMs } = yield* withLoopLag(
        http("POST", `${integrations}/catalog/import-spec`, { token: admin, body: { name: "bomb", spec: openApiRefBomb(30) } })
      )
      assert.strictEqual(bomb.status, 422, bomb.text)
      assert.strictEqual(bomb.body.code, "INPUT_LIMIT_EXCEEDED")
      assert.match(bomb.body.message, /dereferenced/)
      assert.isBelow(maxLagMs, MAX_LAG_MS)
      const yamlBomb = yield* http("POST", `${integrations}/catalog/import-spec`, {
        token: admin,
        body: { name: "bomb2", spec: JSON.stringify(openApiRefBomb(22)) }
      })
      assert.strictEqual(yamlBomb.status, 422, yamlBomb.text)
      assert.strictEqual((yield* http("GET", `${integrations}/catalog`, { token: admin })).body.items.length, 0, "nothing is left behind")

      const tree = yield* http("POST", `${integrations}/catalog/import-spec`, { token: admin, body: { name: "tree", spec: openApiCircular() } })
      assert.strictEqual(tree.status, 201, tree.text)
      const input = tree.body.functions[0].input_schema
      assert.deepStrictEqual(input.required, ["name"])
      assert.strictEqual(input.properties.children.type, "array")
    }))

  it.effect("office files: a DOCX of 8 MiB of XML in 25 KiB, a PPTX naming one slide 2,000 times, 6,000 entries: 4xx within the caps", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const docx = docxBomb(8 * 1024 * 1024)
      assert.isBelow(docx.byteLength, 64 * 1024)
      const { result: template, maxLagMs } = yield* withLoopLag(upload(`${docgen}/templates/upload`, admin, docx, "bomb.docx"))
      assert.strictEqual(template.status, 422, template.text)
      assert.strictEqual(template.body?.code, "INPUT_LIMIT_EXCEEDED")
      assert.match(template.body?.message, /compression bomb/)
      assert.isBelow(maxLagMs, MAX_LAG_MS)

      const { result: slides, maxLagMs: slidesLag } = yield* withLoopLag(upload(`${docgen}/templates/upload`, admin, pptxSlideBomb(2_000), "bomb.pptx"))
      assert.strictEqual(slides.status, 422, slides.text)
      assert.match(slides.body?.message, /more than 1000 slides/)
      assert.isBelow(slidesLag, MAX_LAG_MS)
      const repeated = yield* upload(`${docgen}/templates/upload`, admin, pptxSlideBomb(50), "repeated.pptx")
      assert.strictEqual(repeated.status, 400, repeated.text)
      assert.strictEqual(repeated.body?.code, "UNSUPPORTED_TEMPLATE")
      assert.match(repeated.body?.message, /more than once/)

      const entries = yield* upload(`${docgen}/templates/upload`, admin, manyEntries(6_000), "many.docx")
      assert.strictEqual(entries.status, 422, entries.text)
      assert.match(entries.body?.message, /more than 5000 entries/)
      assert.strictEqual((yield* http("GET", `${docgen}/templates`, { token: admin })).body.items.length, 0, "nothing is left behind")

      const kb = yield* http("POST", "/api/v1/ingestion/knowledge-bases", { token: admin, body: { name: "Hostile", description: "" } })
      const { result: knowledge, maxLagMs: knowledgeLag } = yield* withLoopLag(
        upload(`/api/v1/ingestion/knowledge-bases/${kb.body.id}/documents`, admin, docx, "bomb.docx")
      )
      assert.strictEqual(knowledge.status, 422, knowledge.text)
      assert.isBelow(knowledgeLag, MAX_LAG_MS)
      assert.strictEqual((yield* http("GET", `/api/v1/ingestion/knowledge-bases/${kb.body.id}/documents`, { token: admin })).body.total, 0)
    }))

  it.effect("markup and text: 100,000 nested elements are refused off the event loop; 9 MB of text is chunked in linear time", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const nested = `<section id="s">${"<div>".repeat(100_000)}deep</section>`
      const { result: doc, maxLagMs } = yield* withLoopLag(
        http("POST", `${docgen}/documents`, { token: admin, body: { title: "Nested", content_html: nested } })
      )
      assert.strictEqual(doc.status, 400, doc.text)
      assert.match(doc.body.message, /nested too deeply/)
      assert.isBelow(maxLagMs, MAX_LAG_MS)
      const kb = yield* http("POST", "/api/v1/ingestion/knowledge-bases", { token: admin, body: { name: "Text", description: "" } })
      const text = new TextEncoder().encode("word ".repeat(1_800_000))
      // Its 15,000 chunks are stored in statements of 1,000 (one of 105,000 parameters failed).
      const added = yield* upload(`/api/v1/ingestion/knowledge-bases/${kb.body.id}/documents`, admin, text, "long.txt", { title: "Long" })
      assert.strictEqual(added.status, 201, added.text)
      assert.isAbove(added.body?.chunk_count, 10_000)
    }))

  it.effect("scripts: four endless loops of one tenant hold one thread, another tenant's script runs meanwhile; broken engines do not outlive their script", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const scripts = (token: string, name: string) =>
        Effect.gen(function*() {
          const entry = yield* http("POST", `${integrations}/catalog`, {
            token,
            body: {
              name,
              functions: [
                { name: "spin", kind: "script", source: "while (true) {}" },
                { name: "echo", kind: "script", source: "return input" },
                {
                  name: "overflow",
                  kind: "script",
                  source: "const a = []; for (let i = 0; i < 300000; i++) a.push({ i, s: 'x' + i }); const f = () => f() + 1; return f()"
                }
              ]
            }
          })
          assert.strictEqual(entry.status, 201, entry.text)
          const install = (yield* http("POST", `${integrations}/integrations`, { token, body: { catalog_id: entry.body.id } })).body.id as string
          for (const fn of ["spin", "echo", "overflow"]) yield* http("POST", `${integrations}/integrations/${install}/functions/${fn}/enable`, { token })
          return (fn: string, input: Record<string, unknown> = {}) =>
            http("POST", `${integrations}/execute`, { token, body: { function_name: `${name}.${fn}`, input } })
        })
      const callA = yield* scripts(admin, "hostile")
      const other = yield* createTenant(admin, `other-${Date.now()}`)
      const adminB = yield* createMember(admin, "system_admin", { tenantId: other.id })
      const callB = yield* scripts(yield* loginToken(adminB.email, adminB.password, other.slug), "friendly")

      const { result, maxLagMs } = yield* withLoopLag(Effect.gen(function*() {
        const finished: Array<string> = []
        const spins = yield* Effect.forkAll(Array.from({ length: 4 }, (_, i) => Effect.tap(callA("spin"), () => Effect.sync(() => finished.push(`spin${i}`)))))
        yield* Effect.sleep("300 millis")
        const echo = yield* callB("echo", { hello: "B" })
        finished.push("echo")
        return { spins: yield* Fiber.join(spins), echo, finished }
      }))
      assert.deepStrictEqual(result.echo.body.output, { hello: "B" })
      assert.strictEqual(result.finished[0], "echo", "the other tenant's script did not wait for the loops")
      for (const spin of result.spins) assert.match(spin.body.error, /CPU limit/)
      assert.isBelow(maxLagMs, MAX_LAG_MS)

      for (let i = 0; i < 13; i++) {
        const overflow = yield* callA("overflow")
        assert.strictEqual(overflow.status, 200, overflow.text)
        assert.strictEqual(overflow.body.status, "error")
      }
      assert.deepStrictEqual((yield* callA("echo", { still: "works" })).body.output, { still: "works" })
      assert.deepStrictEqual((yield* callB("echo", { still: "works" })).body.output, { still: "works" })
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { browserAvailable, signIn, watchedPage, workerBrowser } from "../support/Browser.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform } from "../support/TestPlatform.js"

// Issue 39: documents in the console: edited in the rich-text editor, commented, a save conflict, restored.

const docs = "/api/v1/docgen/documents"
const FIRST = `<section id="leave"><h2>Leave</h2><p>Twenty days a year.</p></section><section id="sick"><h2>Sick days</h2><p>Ten days.</p></section>`

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "120 seconds" })("the console in a browser: documents", (it) => {
  it.scoped.skipIf(!browserAvailable)(
    "a document edited (its sections kept), a comment on a selection, a save conflict settled, the inline assistant (edit applied, a question), an earlier version restored, a generation followed live, an export",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const { baseUrl } = yield* TestPlatform
        const created = yield* http("POST", docs, { token, body: { title: "Handbook", content_html: FIRST } })
        assert.strictEqual(created.status, 201, created.text)
        const id = created.body.id as string
        const browser = yield* workerBrowser
        // The save conflict below is answered 409 on purpose.
        const { page, problems, shot } = yield* watchedPage(browser, [/^409 .*\/api\/v1\/docgen\/documents\/[0-9a-f-]+\/versions$/])
        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD)
        const paragraph = page.getByLabel("Document content").getByText("Twenty days a year.")
        yield* Effect.promise(async () => {
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Documents" }).click()
          await page.getByRole("link", { name: "Handbook" }).click()
          await paragraph.click()
          await page.keyboard.press("End")
          await page.keyboard.type(" Thirty after five years.")
          await page.getByLabel("Change").fill("Seniority")
          await page.getByRole("button", { name: "Save version" }).click()
          await page.getByRole("status").filter({ hasText: /^Version 2$/ }).waitFor()
        })
        const second = yield* http("GET", `${docs}/${id}`, { token })
        assert.strictEqual(second.body.version, 2)
        assert.include(second.body.content_html, "Twenty days a year. Thirty after five years.")
        assert.include(second.body.content_html, "<section id=\"sick\">", "sections kept with their ids")

        // A comment on a selection: the paragraph selected by keyboard.
        yield* Effect.promise(async () => {
          await page.getByLabel("Document content").getByText("Ten days.").click()
          await page.keyboard.press("Home")
          await page.keyboard.press("Shift+End")
          await page.getByText("On “Ten days.”").waitFor()
          await page.getByLabel("New comment").fill("Is this per year?")
          await page.getByRole("button", { name: "Comment on the selection" }).click()
          await page.getByRole("region", { name: "Comments" }).locator("blockquote").getByText("Ten days.").waitFor()
        })
        const threads = yield* http("GET", `${docs}/${id}/comments/threads`, { token })
        assert.deepInclude(threads.body.items[0].anchor, { quote: "Ten days.", section_id: "sick" })

        // Someone else saves meanwhile: the save asks, both texts shown; this person keeps theirs.
        const other = yield* http("POST", `${docs}/${id}/versions`, {
          token,
          body: { content_html: FIRST.replace("Ten days.", "Twelve days."), base_version: 2 }
        })
        assert.strictEqual(other.status, 201, other.text)
        yield* Effect.promise(async () => {
          await paragraph.click()
          await page.keyboard.press("Home")
          await page.keyboard.type("Full time: ")
          await page.getByRole("button", { name: "Save version" }).click()
          const dialog = page.getByRole("alertdialog", { name: "The document changed" })
          await dialog.getByText("Twelve days.").waitFor()
          await dialog.getByRole("button", { name: "Keep mine (save over it)" }).click()
          await page.getByRole("status").filter({ hasText: /^Version 4$/ }).waitFor()
        })
        const fourth = yield* http("GET", `${docs}/${id}`, { token })
        assert.include(fourth.body.content_html, "Full time: Twenty days a year.")
        yield* shot("document")

        // The inline assistant rewrites the selection; the rewrite is applied in place.
        const model = yield* ScriptedModel
        model.setScript((r) =>
          String(r.messages[0]?.content ?? "").startsWith("You edit part of a document")
            ? { text: JSON.stringify({ reply: "Shorter.", replacement_text: "Ten days, paid." }) }
            : { text: "The handbook grants ten sick days." }
        )
        yield* Effect.promise(async () => {
          await page.getByLabel("Document content").getByText("Ten days.").click()
          await page.keyboard.press("Home")
          await page.keyboard.press("Shift+End")
          await page.getByRole("tab", { name: "Assistant" }).click()
          await page.getByLabel("How to change it").fill("Say it is paid")
          await page.getByRole("button", { name: "Suggest a change" }).click()
          await page.getByLabel("Assistant reply").getByText("Ten days, paid.").waitFor()
          await page.getByRole("button", { name: "Apply" }).click()
          await page.getByLabel("Document content").getByText("Ten days, paid.").waitFor()
          await page.getByLabel("Ask about the document").check()
          await page.getByLabel("Question").fill("How many sick days?")
          await page.getByRole("button", { name: "Ask", exact: true }).click()
          await page.getByLabel("Assistant reply").getByText("The handbook grants ten sick days.").waitFor()
        })

        // Version 1 restored: a new latest version with its content.
        yield* Effect.promise(async () => {
          await page.getByRole("tab", { name: "Versions" }).click()
          await page.getByRole("button", { name: "Version 1", exact: true }).click()
          await page.getByRole("button", { name: "Restore version 1" }).click()
          await page.getByRole("status").filter({ hasText: /^Version 5$/ }).waitFor()
          await page.getByLabel("Document content").getByText("Twenty days a year.", { exact: true }).waitFor()
        })
        const restored = yield* http("GET", `${docs}/${id}`, { token })
        assert.strictEqual(restored.body.version, 5)
        assert.notInclude(restored.body.content_html, "Thirty after five years.")
        // Generation by an AI Employee, followed live; the document shows what it wrote.
        const writer = yield* publishedWorkflow(token, {
          nodes: [{
            id: "write",
            type: "agent",
            agent_config: {
              agent_type: "custom",
              type_version: "v1",
              system_prompt_template: "Write document {{workflow_input.document.id}}",
              action_ids: ["docgen.update_document"]
            }
          }],
          edges: []
        }, { name: "Writer" })
        model.setScript((r) => {
          if (r.messages.some((m) => m.role === "tool")) return { text: "Written." }
          const docId = /Write document (\S+)/.exec(String(r.messages[0]?.content ?? ""))?.[1] ?? ""
          return {
            toolCalls: [{
              id: "w1",
              name: "docgen_update_document",
              arguments: JSON.stringify({
                document_id: docId,
                target_section_id: "sick",
                content_html: "<h2>Sick days</h2><p>Fifteen days.</p>",
                change_description: "sick"
              })
            }]
          }
        })
        yield* Effect.promise(async () => {
          await page.getByRole("tab", { name: "Generate" }).click()
          await page.getByRole("region", { name: "Generate" }).locator("option", { hasText: "Writer" }).waitFor({ state: "attached" })
          await page.getByRole("region", { name: "Generate" }).getByLabel("AI Employee").selectOption({ label: "Writer" })
          await page.getByRole("button", { name: "Generate", exact: true }).click()
          await page.getByRole("status", { name: "Generation" }).locator("p").getByText("Written.").waitFor({ timeout: 20_000 })
          await page.getByLabel("Document content").getByText("Fifteen days.").waitFor()
        })
        assert.strictEqual((yield* http("GET", `${docs}/${id}`, { token })).body.version, 6, "the run wrote a version")
        assert.isString(writer)
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "Export (HTML)" }).click()
          await page.getByRole("link", { name: "Download the export" }).waitFor({ timeout: 20_000 })
        })
        assert.deepStrictEqual(problems(), [])
      })
  )
})

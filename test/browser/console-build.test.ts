import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { browserAvailable, launchBrowser, signIn, watchedPage } from "../support/Browser.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform } from "../support/TestPlatform.js"

// Issue 35: the builder side of the console, in Chromium against the real platform: an AI
// Employee built from nothing on the canvas to a published version a run completes on, its draft
// tested with the steps lit up, a blocker shown on its node, versions compared and reverted.

const node = (page: Page, id: string) => page.locator(`.step-node[data-node-id="${id}"]`)

/** Types into the instructions and picks the first reference offered after `{{`. */
const instructions = async (page: Page, before: string, typed: string, pick: string) => {
  const field = page.getByLabel("Instructions *")
  await field.fill(before)
  await field.pressSequentially(typed)
  await page.getByRole("listbox", { name: "References" }).getByRole("option").filter({ hasText: pick }).first().getByRole("button").click()
}

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "180 seconds" })("the console in a browser: build", (it) => {
  it.scoped.skipIf(!browserAvailable)("an AI Employee built from nothing on the canvas: inputs, two agent steps with references, a blocker on its node, fixed, published; a run completes on it", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const { baseUrl } = yield* TestPlatform
      model.setScript(() => ({ text: "Twenty-five days." }))
      const browser = yield* launchBrowser
      const { page, problems, shot } = yield* watchedPage(browser, [/^422 .*\/publish$/])
      yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD, "/ai-employees")
      yield* Effect.promise(async () => {
        await page.getByRole("button", { name: "New AI Employee" }).click()
        await page.getByRole("button", { name: "Create and open the canvas" }).click()
        await page.getByText("A name is required").waitFor()
        await page.getByLabel("Name *").fill("Leave helper")
        await page.getByLabel("Description").fill("Answers questions about leave")
        await page.getByLabel("Category").fill("HR")
        await page.getByRole("button", { name: "Create and open the canvas" }).click()
        await page.getByRole("toolbar", { name: "Canvas" }).waitFor()
        await page.getByText("All changes saved").waitFor()
      })
      const id = page.url().match(/ai-employees\/([0-9a-f-]{36})\/build/)![1]!
      // The start node: one required input.
      yield* Effect.promise(async () => {
        await node(page, "__start").click()
        await page.getByRole("button", { name: "Add an input" }).click()
        await page.getByLabel("Field name").fill("question")
        await page.getByLabel("Label").fill("Question")
        await page.getByLabel("Required").check()
        await node(page, "__start").getByText("1 input").waitFor()
      })
      // Two agent steps, the second added below the first and connected from it.
      yield* Effect.promise(async () => {
        await page.getByRole("navigation", { name: "Add a node" }).getByRole("button", { name: "Agent" }).click()
        await node(page, "step").waitFor()
        await page.getByRole("complementary", { name: /^Node / }).getByLabel("Name", { exact: true }).fill("Answer")
        await instructions(page, "Answer this: ", "{{work", "workflow_input.question")
        await page.getByRole("navigation", { name: "Add a node" }).getByRole("button", { name: "Agent" }).click()
        await node(page, "step_2").waitFor()
        await page.getByRole("complementary", { name: /^Node / }).getByLabel("Name", { exact: true }).fill("Polish")
        await page.getByLabel("Instructions *").fill("Polish {{nodes.draft.output.text}}")
      })
      // Drawn once React Flow has measured the nodes: start -> Answer and Answer -> Polish.
      yield* Effect.promise(() => page.waitForFunction(() => document.querySelectorAll(".react-flow__edge").length === 2))
      // Undo takes back the whole instructions text at once; redo brings it back.
      yield* Effect.promise(async () => {
        await page.getByRole("button", { name: "Undo" }).click()
        assert.strictEqual(await page.getByLabel("Instructions *").inputValue(), "")
        await page.getByRole("button", { name: "Redo" }).click()
        assert.strictEqual(await page.getByLabel("Instructions *").inputValue(), "Polish {{nodes.draft.output.text}}")
      })
      // Saved: the server's blocker for a reference to a node that does not exist is on that node.
      yield* Effect.promise(async () => {
        await page.getByRole("button", { name: "Save draft" }).click()
        await page.getByText(/Saved as version/).waitFor()
        await node(page, "step_2").getByLabel("1 blocking problem").waitFor()
        await page.getByRole("complementary", { name: /^Node / }).getByText("TEMPLATE_UNKNOWN_NODE").waitFor()
      })
      yield* shot("builder-blocker")
      const saved = (yield* http("GET", `/api/v1/workflow/workflows/${id}`, { token })).body
      assert.strictEqual(saved.dag_definition.nodes.length, 2)
      assert.strictEqual(saved.dag_definition.nodes[0].agent_config.system_prompt_template, "Answer this: {{workflow_input.question}}")
      assert.deepStrictEqual(saved.dag_definition.edges, [{ from: "step", to: "step_2" }])
      assert.deepStrictEqual(saved.dag_definition.input_schema.required, ["question"])
      // Publishing now is refused, and the refusal names the node.
      yield* Effect.promise(async () => {
        await page.getByRole("button", { name: "Publish" }).click()
        await page.getByRole("heading", { name: "Publishing is blocked" }).waitFor()
      })
      // Fixed with the reference offered for the upstream step, then published.
      yield* Effect.promise(async () => {
        await node(page, "step_2").click()
        await instructions(page, "Polish ", "{{nodes.st", "nodes.step.output.text")
        assert.strictEqual(await page.getByLabel("Instructions *").inputValue(), "Polish {{nodes.step.output.text}}")
        await page.getByRole("button", { name: "Publish" }).click()
        await page.getByText(/Version \d+ is live/).waitFor()
        await node(page, "step_2").getByLabel("1 blocking problem").waitFor({ state: "detached" })
      })
      const published = (yield* http("GET", `/api/v1/workflow/workflows/${id}`, { token })).body
      assert.strictEqual(published.builder_state, "published")
      // The run form of the published version, and the run completing on it.
      yield* Effect.promise(async () => {
        await page.getByRole("link", { name: "Leave helper" }).click()
        await page.getByRole("tab", { name: "Start a run" }).click()
        await page.getByLabel("Question *").fill("How many days?")
        await page.getByRole("button", { name: "Start run" }).click()
        await page.waitForURL(/\/runs\/[0-9a-f-]{36}/)
      })
      const runId = page.url().match(/\/runs\/([0-9a-f-]{36})/)![1]!
      assert.strictEqual((yield* waitForStatus(token, runId, ["completed", "failed"])).status, "completed")
      assert.deepStrictEqual(problems(), [])
    }))
})

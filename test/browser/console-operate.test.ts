import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { browserAvailable, signIn, watchedPage, workerBrowser } from "../support/Browser.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform } from "../support/TestPlatform.js"
import { answererDag } from "../support/Workflows.js"

// Issue 33: the console, used in a real browser (Debian's Chromium through playwright-core),
// against the real platform. Every test fails on a page error, a console error or warning, a
// failed request or an unexpected error answer.

const approver = {
  nodes: [
    { id: "draft", type: "agent", name: "Draft", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Draft a reply" } },
    {
      id: "send",
      type: "agent",
      name: "Send",
      agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Send it" },
      hitl: { type: "approval", prompt: "Send this reply to the customer?", assignee: { role: "builder" } }
    }
  ],
  edges: [{ from: "draft", to: "send" }]
}

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "120 seconds" })("the console in a browser: operate", (it) => {
  it.scoped.skipIf(!browserAvailable)(
    "sign in, start a run from the AI Employee's form, follow it live to its end, read its steps and trace; a deep link opened fresh signs in and comes back",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript(() => ({ text: "", chunks: ["Twenty-five ", "days ", "of ", "paid ", "leave ", "a ", "year."], delayMs: 250 }))
        yield* publishedWorkflow(token, answererDag, { name: "Leave answers" })
        const browser = yield* workerBrowser
        const { page, problems, shot, context } = yield* watchedPage(browser)

        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD)
        yield* Effect.promise(async () => {
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          await page.getByRole("link", { name: "AI Employees" }).click()
          await page.getByRole("link", { name: "Leave answers" }).click()
          await page.locator(".react-flow__node").first().waitFor()
        })
        assert.strictEqual(yield* Effect.promise(() => page.locator(".react-flow__node").count()), 1, "the DAG is drawn")
        yield* shot("ai-employee")
        yield* Effect.promise(async () => {
          await page.getByRole("tab", { name: "Start a run" }).click()
          await page.getByLabel("Question *").fill("How many days of leave do I get?")
          await page.getByRole("button", { name: "Start run" }).click()
          // The run page, its steps: the reply streams in while the model sends it.
          await page.locator("pre.streaming").waitFor({ timeout: 15_000 })
        })
        const streamed = yield* Effect.promise(() => page.locator("pre.streaming").textContent())
        assert.notInclude(streamed ?? "", "year.", "shown before the model finished")
        yield* Effect.promise(() => page.locator(".page-head .badge").getByText("completed").waitFor({ timeout: 20_000 }))
        const runId = page.url().match(/\/runs\/([0-9a-f-]{36})/)![1]
        assert.strictEqual((yield* waitForStatus(token, runId, ["completed"])).status, "completed")
        yield* Effect.promise(async () => {
          await page.getByText("Twenty-five days of paid leave a year.").first().waitFor()
          await page.getByRole("tab", { name: "Events" }).click()
          await page.locator("li.event[data-type=\"run_completed\"]").waitFor()
        })
        yield* shot("run-events")
        yield* Effect.promise(async () => {
          await page.getByRole("tab", { name: "Trace" }).click()
          await page.locator(".wf-row").filter({ hasText: "model test-model" }).waitFor()
        })
        const spans = yield* Effect.promise(() => page.locator(".wf-row").count())
        assert.isAtLeast(spans, 4, "run, node, agent and model call spans")
        assert.include(yield* Effect.promise(() => page.locator(".wf-row").filter({ hasText: "model test-model" }).textContent()), "tokens")

        // The same run by its link in a new tab of the session, and in a browser that is signed out.
        const tab = yield* Effect.promise(() => context.newPage())
        yield* Effect.promise(async () => {
          await tab.goto(`${baseUrl}/runs/${runId}?tab=trace`)
          await tab.locator(".wf-row").first().waitFor()
        })
        const fresh = yield* watchedPage(browser)
        yield* signIn(fresh.page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD, `/runs/${runId}`)
        yield* Effect.promise(() => fresh.page.getByRole("heading", { name: /^Run / }).waitFor())
        assert.include(fresh.page.url(), `/runs/${runId}`, "back at the deep link after signing in")
        assert.deepStrictEqual([...problems(), ...fresh.problems()], [])
      })
  )

  it.scoped.skipIf(!browserAvailable)(
    "the inbox: the badge counts a waiting approval, which is answered with a comment and resumes its run; runs filtered and cancelled in bulk",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript(() => ({ text: "Dear customer, done." }))
        const id = yield* publishedWorkflow(token, approver, { name: "Careful replies" })
        const waiting = yield* startRun(token, id, {})
        yield* waitForStatus(token, waiting.body.id, ["paused"])
        const browser = yield* workerBrowser
        const { page, problems, shot } = yield* watchedPage(browser)
        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD, "/inbox")
        yield* Effect.promise(async () => {
          await page.getByLabel("1 waiting").waitFor()
          await page.getByRole("heading", { name: "Send this reply to the customer?" }).waitFor()
        })
        yield* Effect.promise(async () => {
          const card = page.locator("article.card").filter({ hasText: "Send this reply to the customer?" })
          await card.getByRole("button", { name: "Claim" }).click()
          await card.getByText("claimed").waitFor()
          await card.getByLabel("Comment").fill("Looks right")
          await card.getByRole("button", { name: "Approve" }).click()
          await page.getByText("Nothing waits for you.").waitFor()
        })
        const done = yield* waitForStatus(token, waiting.body.id, ["completed", "failed"])
        assert.strictEqual(done.status, "completed")
        const steps = (yield* http("GET", `/api/v1/workflow/runs/${waiting.body.id}/steps`, { token })).body.items as Array<{ node_id: string }>
        assert.deepStrictEqual(steps.map((s) => s.node_id), ["draft", "send"])

        // Three runs waiting for a person, found by their status and cancelled together.
        const three: Array<string> = []
        for (let i = 0; i < 3; i++) three.push((yield* startRun(token, id, {})).body.id as string)
        for (const run of three) yield* waitForStatus(token, run, ["paused"])
        yield* Effect.promise(async () => {
          await page.getByRole("link", { name: "Runs", exact: true }).click()
          await page.getByLabel("Status").selectOption("paused")
          await page.waitForURL(/status=paused/)
          for (const run of three) await page.getByLabel(`Select run ${run.slice(-8)}`).check()
        })
        const firstRow = () => Effect.promise(() => page.locator("tbody tr").first().locator("a.mono").textContent())
        assert.strictEqual(yield* firstRow(), three[2].slice(-8), "newest first")
        yield* shot("runs")
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: /^Started/ }).click()
          await page.waitForURL(/order=oldest/)
          await page.locator("tbody tr").first().locator("a.mono").getByText(three[0].slice(-8)).waitFor()
          await page.getByRole("button", { name: /^Started/ }).click()
          await page.locator("tbody tr").first().locator("a.mono").getByText(three[2].slice(-8)).waitFor()
        })
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "Cancel 3 selected" }).click()
          await page.getByText("No runs match these filters.").waitFor()
        })
        for (const run of three) assert.strictEqual((yield* http("GET", `/api/v1/workflow/runs/${run}`, { token })).body.status, "cancelled")
        yield* Effect.promise(async () => {
          await page.goBack()
          await page.getByLabel("Status").waitFor()
        })
        assert.include(page.url(), "status=paused", "back goes to the list sorted the other way")
        yield* Effect.promise(async () => {
          await page.goBack()
          await page.goBack()
          await page.getByLabel("Status").waitFor()
        })
        assert.notInclude(page.url(), "status=paused", "and on to the unfiltered list")
        assert.deepStrictEqual(problems(), [])
      })
  )
})

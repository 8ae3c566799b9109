import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { browserAvailable, signIn, watchedPage, workerBrowser } from "../support/Browser.js"
import { api, csvOf, isJudge, judged, rubricSchema, scoresOf, stats, untilEnded } from "../support/EvalFixtures.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform } from "../support/TestPlatform.js"
import { respondNode } from "../support/Workflows.js"

// Issue 39: evaluation in the console, from a CSV to the charts of a run and two runs compared.

const ROWS = 5

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "120 seconds" })("the console in a browser: evaluation", (it) => {
  it.scoped.skipIf(!browserAvailable)(
    "a CSV uploaded and mapped, a rubric drafted from a description, a config, an evaluation followed to its charts and results, two compared, one cancelled",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript((r) => {
          if (isJudge(r)) return { text: JSON.stringify(scoresOf(String(judged(r).inputs.question))) }
          if (String(r.messages[0]?.content ?? "").includes("rubric")) {
            return { text: JSON.stringify({ name: "Quality", rubric_instructions: "Judge accuracy (1-5) and helpfulness.", rubric_schema: rubricSchema }) }
          }
          return { text: "a reply" }
        })
        const workflowId = yield* publishedWorkflow(token, { nodes: [respondNode("answer", "Answer: {{workflow_input.question}}")], edges: [] }, {
          name: "Helpdesk"
        })
        const browser = yield* workerBrowser
        const { page, problems, shot } = yield* watchedPage(browser)
        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD)
        yield* Effect.promise(async () => {
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Evaluation" }).click()
          // The runs page has an "AI Employee" filter too: until the evaluation page is there, that is the one found.
          await page.getByRole("region", { name: "Evaluation" }).getByLabel("AI Employee").selectOption({ label: "Helpdesk" })
          await page.getByRole("tab", { name: "Datasets" }).click()
          await page.getByLabel("Name").fill("Golden")
          await page.getByLabel("CSV file").setInputFiles({ name: "golden.csv", mimeType: "text/csv", buffer: Buffer.from(csvOf(ROWS)) })
          await page.getByRole("button", { name: "Upload" }).click()
          await page.getByLabel("Column expected").selectOption("expected")
          await page.getByRole("button", { name: "Apply mapping" }).click()
          await page.getByRole("table", { name: "Rows preview" }).getByText("\"question\":\"q4\"").waitFor()
        })
        yield* Effect.promise(async () => {
          await page.getByRole("tab", { name: "Rubrics" }).click()
          await page.getByRole("button", { name: "New rubric" }).click()
          await page.getByLabel("Describe what good looks like").fill("Accurate and helpful answers")
          await page.getByRole("button", { name: "Generate a draft" }).click()
          await page.getByLabel("Name").and(page.locator("input[value=Quality]")).waitFor()
          await page.getByRole("button", { name: "Save rubric" }).click()
          await page.getByRole("tab", { name: "Configs" }).click()
          await page.getByRole("button", { name: "New config" }).click()
          await page.getByLabel("Name").fill("Whole")
          await page.getByLabel("Rubric").selectOption({ label: "Quality" })
          await page.getByLabel("Judge model").fill("test-model")
          await page.getByRole("button", { name: "Save config" }).click()
          await page.getByRole("cell", { name: "Whole" }).waitFor()
          await page.getByRole("tab", { name: "Evaluations" }).click()
          await page.getByLabel("Config").selectOption({ label: "Whole" })
          await page.getByLabel("Dataset").selectOption({ label: `Golden (${ROWS} rows)` })
          await page.getByRole("button", { name: "Start evaluation" }).click()
          await page.getByRole("heading", { name: /^Evaluation / }).waitFor()
          await page.locator(".page-head .badge").getByText("completed").waitFor({ timeout: 60_000 })
          await page.getByRole("table", { name: "Scores" }).getByRole("cell", { name: "accuracy" }).waitFor()
        })
        yield* shot("eval-run")
        const accuracy = stats(Array.from({ length: ROWS }, (_, i) => scoresOf(`q${i}`).accuracy))
        const row = yield* Effect.promise(() => page.getByRole("table", { name: "Scores" }).getByRole("row").filter({ hasText: "accuracy" }).innerText())
        assert.deepStrictEqual(row.split(/\s+/).filter((c) => c !== ""), [
          "accuracy",
          ...[accuracy.mean, accuracy.median, accuracy.p5, accuracy.p95].map((n) => n.toFixed(2))
        ])
        assert.isAtLeast(yield* Effect.promise(() => page.locator("figure.chart .recharts-bar-rectangle").count()), 1, "the means are drawn")
        yield* Effect.promise(async () => {
          await page.getByLabel("Status").selectOption("completed")
          await page.getByRole("button", { name: "Open result 1" }).click()
          await page.getByRole("link", { name: "Open the workflow run" }).waitFor()
        })

        // A second evaluation of the same dataset, then the two compared row by row.
        const first = page.url().match(/\/eval\/runs\/([0-9a-f-]{36})/)![1]
        const configs = yield* http("GET", `${api}/configs?workflow_id=${workflowId}`, { token })
        const datasets = yield* http("GET", `${api}/datasets?workflow_id=${workflowId}`, { token })
        const second = yield* http("POST", `${api}/runs`, { token, body: { config_id: configs.body.items[0].id, dataset_id: datasets.body.items[0].id } })
        assert.strictEqual(second.status, 202, second.text)
        yield* untilEnded(token, second.body.id)
        yield* Effect.promise(async () => {
          await page.getByRole("link", { name: "Back to the evaluations" }).click()
          await page.getByLabel(`Pick ${first.slice(-8)} to compare`).check()
          await page.getByLabel(`Pick ${String(second.body.id).slice(-8)} to compare`).check()
          await page.getByRole("link", { name: "Compare the two picked" }).click()
          await page.getByRole("table", { name: "Rows compared" }).getByRole("row").nth(ROWS).waitFor()
        })
        yield* shot("eval-compare")
        assert.include(yield* Effect.promise(() => page.getByRole("table", { name: "Rows compared" }).innerText()), "(0)", "same scores: no difference")

        // A slow evaluation cancelled from its page while it runs.
        model.setScript((r) => isJudge(r) ? { text: JSON.stringify(scoresOf(String(judged(r).inputs.question))), delayMs: 3000 } : { text: "a reply" })
        const slow = yield* http("POST", `${api}/runs`, { token, body: { config_id: configs.body.items[0].id, dataset_id: datasets.body.items[0].id } })
        yield* Effect.promise(async () => {
          await page.goto(`${baseUrl}/eval/runs/${slow.body.id}`)
          await page.getByRole("button", { name: "Cancel" }).click()
          await page.locator(".page-head .badge").getByText("cancelled").waitFor()
        })
        assert.strictEqual((yield* untilEnded(token, slow.body.id)).status, "cancelled")
        assert.deepStrictEqual(problems(), [])
      })
  )
})

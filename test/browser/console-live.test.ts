import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { browserAvailable, signIn, watchedPage, workerBrowser } from "../support/Browser.js"
import { faultProxy } from "../support/FaultProxy.js"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { readStream, startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform } from "../support/TestPlatform.js"
import { respondNode } from "../support/Workflows.js"

// Issue 33: the live parts of a run's page in a real browser: the event stream across a dropped
// connection, a run of 5,000 events, the trace waterfall while the run runs, child runs.

/** The number in "5,006 events · live". */
const eventCount = (text: string | null) => Number((text ?? "").split(" events")[0].replace(/\D/g, ""))

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "150 seconds" })("the console in a browser: a run live", (it) => {
  it.scoped.skipIf(!browserAvailable)(
    "the event stream resumes after a dropped connection with Last-Event-ID, losing and repeating nothing; 5,000 events stay a short virtual list",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        const proxy = yield* faultProxy({ host: "127.0.0.1", port: Number(new URL(baseUrl).port) })
        const viaProxy = `http://127.0.0.1:${proxy.port}`
        const words = Array.from({ length: 30 }, (_, i) => `word${i} `)
        model.setScript(() => ({ text: "", chunks: words, delayMs: 150 }))
        const id = yield* publishedWorkflow(token, { nodes: [respondNode("answer", "Say thirty words")], edges: [] }, { name: "Long talker" })
        const browser = yield* workerBrowser
        const { page, problems } = yield* watchedPage(browser)
        const resumedFrom: Array<string> = []
        page.on("request", (r) => {
          if (!r.url().endsWith("/stream")) return
          // The header the network stack adds (not in `headers()`).
          void r.allHeaders().then((h) => h["last-event-id"] !== undefined && resumedFrom.push(h["last-event-id"]))
        })
        yield* signIn(page, viaProxy, ADMIN_EMAIL, ADMIN_PASSWORD)
        yield* Effect.promise(() => page.getByRole("heading", { name: "Runs" }).waitFor())
        const run = (yield* startRun(token, id, {})).body.id as string
        yield* Effect.promise(async () => {
          await page.goto(`${viaProxy}/runs/${run}?tab=events`)
          await page.locator("li.event[data-type=\"token\"]").nth(5).waitFor()
        })
        assert.isAtLeast(proxy.resetWhere(/ \/api\/v1\/workflow\/runs\/[^/ ]+\/stream /), 1, "the stream's connection is cut")
        yield* Effect.promise(() => page.getByText("reconnecting…").waitFor())
        yield* Effect.promise(() => page.locator("li.event[data-type=\"run_completed\"]").waitFor({ timeout: 30_000 }))
        const all = yield* readStream(token, run)
        const shown = eventCount(yield* Effect.promise(() => page.locator(".events-count").textContent()))
        assert.strictEqual(shown, all.events.length, "every event once")
        assert.lengthOf(resumedFrom, 1, "one reconnection, carrying the last event's id")
        assert.isAbove(Number(resumedFrom[0]), 5)
        yield* Effect.promise(async () => {
          await page.getByRole("tab", { name: "Steps" }).click()
          await page.getByText(words.join("").trim()).first().waitFor()
        })

        // 5,000 token events (the runtime cuts streamed text in pieces of 64 characters): the list draws
        // only what is on screen, and its end and start are reachable.
        model.setScript(() => ({ text: "", chunks: Array.from({ length: 5_000 }, (_, i) => `${String(i).padStart(5, "0")} `.padEnd(64, "·")) }))
        const big = (yield* startRun(token, id, {})).body.id as string
        yield* waitForStatus(token, big, ["completed"], 60_000)
        yield* Effect.promise(async () => {
          await page.goto(`${viaProxy}/runs/${big}?tab=events`)
          await page.locator("li.event[data-type=\"run_completed\"]").waitFor({ timeout: 30_000 })
        })
        assert.isAtLeast(eventCount(yield* Effect.promise(() => page.locator(".events-count").textContent())), 5_000)
        assert.isBelow(yield* Effect.promise(() => page.locator("li.event").count()), 100, "a virtual list")
        yield* Effect.promise(async () => {
          await page.getByLabel("Run events").press("Home")
          await page.locator("li.event[data-type=\"step_started\"]").waitFor()
          await page.getByRole("tab", { name: "Overview" }).click()
          await page.getByRole("heading", { name: "Tokens by model" }).waitFor()
        })
        // Chromium logs the connection the test cut; nothing else went wrong.
        assert.deepStrictEqual(problems(), ["console error: Failed to load resource: net::ERR_CONNECTION_RESET"])
      })
  )

  it.scoped.skipIf(!browserAvailable)(
    "the trace waterfall follows the run: pause and resume marks, the failed step in red; a user sees it redacted; parent and child runs link both ways",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript((r) => (String(r.messages[0]?.content).includes("Explode") ? { status: 400, text: "refused" } : { text: "fine" }))
        const child = yield* publishedWorkflow(token, { nodes: [respondNode("child", "Child work")], edges: [] }, { name: "Helper" })
        const parent = yield* publishedWorkflow(token, {
          nodes: [
            { ...respondNode("ask", "Draft"), hitl: { type: "approval", prompt: "Go on?", assignee: { role: "builder" } } },
            { id: "delegate", type: "call_aie", call_aie_config: { workflow_id: child } },
            respondNode("explode", "Explode")
          ],
          edges: [{ from: "ask", to: "delegate" }, { from: "delegate", to: "explode" }]
        }, { name: "Delegator" })
        const run = (yield* startRun(token, parent, {})).body.id as string
        yield* waitForStatus(token, run, ["paused"])
        const browser = yield* workerBrowser
        const { page, problems, shot } = yield* watchedPage(browser)
        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD, `/runs/${run}?tab=trace`)
        yield* Effect.promise(() => page.locator(".wf-mark.hitl\\.paused").first().waitFor())
        assert.strictEqual(yield* Effect.promise(() => page.locator(".wf-mark.hitl\\.resumed").count()), 0)

        const pending = yield* eventually(
          http("GET", "/api/v1/workflow/hitl/pending?page_size=100", { token }).pipe(
            Effect.map((r) => (r.body.items as Array<{ run_id: string; request_id: string }>).find((i) => i.run_id === run))
          ),
          "the request"
        )
        assert.strictEqual(
          (yield* http("POST", `/api/v1/workflow/hitl/${pending.request_id}/respond`, { token, body: { response: { approved: true } } })).status,
          200
        )
        // Without a reload: the resume mark, the child run's span and the failure appear.
        yield* Effect.promise(async () => {
          await page.locator(".wf-mark.hitl\\.resumed").first().waitFor({ timeout: 20_000 })
          await page.locator(".wf-row.failed").first().waitFor({ timeout: 20_000 })
          await page.locator(".page-head .badge").getByText("failed").waitFor()
        })
        assert.include(yield* Effect.promise(() => page.locator(".wf-row").filter({ hasText: "model test-model" }).first().textContent()), "tokens")
        yield* shot("run-trace-paused-failed")

        yield* Effect.promise(async () => {
          await page.getByRole("tab", { name: "Overview" }).click()
          await page.getByRole("heading", { name: "Child runs" }).waitFor()
          await page.getByRole("listitem").filter({ hasText: "Helper" }).getByRole("link").click()
          await page.getByText("started by").waitFor()
          await page.locator(".page-head .badge").getByText("completed").waitFor()
          await page.getByRole("link", { name: run.slice(-8) }).click()
          await page.getByRole("heading", { name: `Run ${run.slice(-8)}` }).waitFor()
        })
        assert.include(page.url(), `/runs/${run}`)

        // A `user` reads the same trace at the basic level: no models, tokens or prompts.
        const reader = yield* createMember(token, "user")
        const other = yield* watchedPage(browser)
        yield* signIn(other.page, baseUrl, reader.email, reader.password, `/runs/${run}?tab=trace`)
        yield* Effect.promise(() => other.page.locator(".wf-row.failed").first().waitFor())
        const rows = yield* Effect.promise(() => other.page.locator(".wf-row").allTextContents())
        assert.isAbove(rows.length, 3)
        assert.isFalse(rows.some((r) => r.includes("tokens")), "tokens are operational detail")
        yield* Effect.promise(async () => {
          await other.page.locator(".wf-row").filter({ hasText: "model call" }).first().getByRole("button").click()
          await other.page.locator(".wf-detail").waitFor()
        })
        const detail = yield* Effect.promise(() => other.page.locator(".wf-detail").textContent())
        assert.notInclude(detail ?? "", "llm.input")
        assert.notInclude(detail ?? "", "Draft")
        assert.strictEqual(yield* Effect.promise(() => other.page.getByRole("button", { name: "Cancel run" }).count()), 0)
        assert.deepStrictEqual([...problems(), ...other.problems()], [])
      })
  )
})

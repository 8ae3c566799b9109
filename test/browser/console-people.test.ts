import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { browserAvailable, signIn, watchedPage, workerBrowser } from "../support/Browser.js"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform } from "../support/TestPlatform.js"
import { createWorkflow, respondNode } from "../support/Workflows.js"

// Issue 33: the people around the runs, in a real browser: every kind of request answered from
// the inbox, a nudge card, what each role is offered, two workspaces, the keyboard, signing out.

const asking = (hitl: Record<string, unknown>) => ({
  nodes: [{ ...respondNode("ask", "Answer was {{nodes.ask.hitl.value}}{{nodes.ask.hitl.form_data.amount}}"), hitl }],
  edges: []
})

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "150 seconds" })("the console in a browser: people", (it) => {
  it.scoped.skipIf(!browserAvailable)(
    "the inbox answers a choice, free text and a form, each resuming its run with the answer, and a nudge card",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript((r) => ({ text: `echo ${String(r.messages[0]?.content)}` }))
        const choice = yield* publishedWorkflow(
          token,
          asking({ type: "ask_human", prompt: "Which plan?", choices: ["basic", "pro"], assignee: { role: "builder" } }),
          { name: "Plan picker" }
        )
        const text = yield* publishedWorkflow(token, asking({ type: "ask_human", prompt: "What should we tell them?", assignee: { role: "builder" } }), {
          name: "Wordsmith"
        })
        const form = yield* publishedWorkflow(
          token,
          asking({
            type: "form",
            prompt: "Refund details",
            form_schema: {
              type: "object",
              properties: { amount: { type: "number", title: "Amount" }, reason: { type: "string", enum: ["late", "broken"] } },
              required: ["amount"]
            },
            assignee: { role: "builder" }
          }),
          { name: "Refunder" }
        )
        const nudger = yield* publishedWorkflow(token, {
          nodes: [
            {
              id: "ask",
              type: "notify_user",
              notify_user_config: {
                operation: "send",
                mode: "park",
                recipient: { user_email: ADMIN_EMAIL },
                title: "Order more coffee?",
                body: "The office is down to one bag",
                actions: [{ label: "Yes please", value: "yes" }, { label: "Not now", value: "no" }],
                expires_after_seconds: 600
              }
            },
            respondNode("after", "Coffee: {{nodes.ask.output.response}}")
          ],
          edges: [{ from: "ask", to: "after" }]
        }, { name: "Office manager" })
        const runs: Record<string, string> = {}
        for (const [name, id] of Object.entries({ choice, text, form, nudger })) {
          runs[name] = (yield* startRun(token, id, {})).body.id as string
          yield* waitForStatus(token, runs[name], ["paused"])
        }
        const browser = yield* workerBrowser
        const { page, problems, shot } = yield* watchedPage(browser)
        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD, "/inbox")
        const card = (prompt: string) => page.locator("article.card").filter({ has: page.getByRole("heading", { name: prompt }) })
        yield* Effect.promise(async () => {
          await page.getByLabel("3 waiting").waitFor()
          await card("Order more coffee?").waitFor()
        })
        yield* shot("inbox")
        yield* Effect.promise(async () => {
          await card("Which plan?").getByRole("button", { name: "pro" }).click()
          await card("What should we tell them?").getByLabel("Your answer").fill("Next Tuesday")
          await card("What should we tell them?").getByRole("button", { name: "Send" }).click()
          // A form checks its fields before it is sent.
          await card("Refund details").getByRole("button", { name: "Submit" }).click()
          await card("Refund details").getByText("Required").waitFor()
          await card("Refund details").getByLabel("Amount *").fill("12.5")
          await card("Refund details").getByLabel("reason").selectOption("broken")
          await card("Refund details").getByRole("button", { name: "Submit" }).click()
          await card("Order more coffee?").getByRole("button", { name: "Yes please" }).click()
          await page.getByText("Nothing waits for you.").waitFor()
          await page.getByRole("status").getByText("You answered “Yes please” to Order more coffee?.").waitFor()
          await page.getByText("No open cards for you.").waitFor()
        })
        for (const run of Object.values(runs)) assert.strictEqual((yield* waitForStatus(token, run, ["completed", "failed"])).status, "completed")
        const prompts = model.requests.map((r) => String(r.messages[0]?.content))
        assert.includeMembers(prompts, ["Answer was pro", "Answer was Next Tuesday", "Answer was 12.5", "Coffee: yes"])
        const request = (yield* http("GET", `/api/v1/workflow/runs/${runs.form}/steps`, { token })).body.items[0]
        assert.strictEqual(request.status, "completed")
        assert.deepStrictEqual(problems(), [])
      })
  )

  it.scoped.skipIf(!browserAvailable)(
    "a person in two workspaces is offered what each role allows, switches between them, works by keyboard and signs out; AI Employees searched and filtered",
    () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript(() => ({ text: "ok" }))
        // Workspace A (the admin's): the person is a builder_admin. Workspace B: a user.
        const other = yield* createTenant(admin, `second-${Date.now().toString(36)}`)
        const person = yield* createMember(admin, "builder_admin")
        assert.strictEqual(
          (yield* http("POST", "/api/v1/auth/users", {
            token: admin,
            body: { email: person.email, name: "B side", password: "unused-password", role: "user", tenant_id: other.id }
          })).status,
          201
        )
        const bBuilder = yield* createMember(admin, "builder", { tenantId: other.id })
        const bToken = yield* loginToken(bBuilder.email, bBuilder.password)
        const inA = yield* publishedWorkflow(admin, {
          nodes: [{ ...respondNode("ask", "Draft"), hitl: { type: "approval", prompt: "Fine?", assignee: { role: "env_admin" } } }],
          edges: []
        }, { name: "Invoice checker", interaction_type: "form" })
        const archived = yield* createWorkflow(admin, { name: "Old helper" })
        assert.strictEqual((yield* http("DELETE", `/api/v1/workflow/workflows/${archived.id}`, { token: admin })).status, 204)
        const inB = yield* publishedWorkflow(bToken, { nodes: [respondNode("a")], edges: [] }, { name: "Beta only" })
        const runA = (yield* startRun(admin, inA, {})).body.id as string
        yield* waitForStatus(admin, runA, ["paused"])
        const runB = (yield* startRun(bToken, inB, {})).body.id as string
        yield* waitForStatus(bToken, runB, ["completed"])

        const browser = yield* workerBrowser
        const { page, problems } = yield* watchedPage(browser, [/^404 .*\/api\/v1\/workflow\/runs\/00000000-0000-4000-8000-000000000000$/])
        yield* signIn(page, baseUrl, person.email, person.password)
        const row = (id: string) => page.getByRole("row").filter({ has: page.getByRole("link", { name: id.slice(-8) }) })
        yield* Effect.promise(async () => {
          await page.locator(".who-role", { hasText: /· builder_admin$/ }).waitFor()
          await row(runA).waitFor()
          // A builder_admin cancels runs: the list offers selection, the run page its cancel.
          await row(runA).getByRole("checkbox").waitFor()
          await page.getByRole("button", { name: /Cancel .*selected/ }).waitFor()
          await row(runA).getByRole("link", { name: runA.slice(-8) }).click()
          await page.getByRole("button", { name: "Cancel run" }).waitFor()
        })
        assert.strictEqual(yield* Effect.promise(() => page.getByText("Beta only").count()), 0, "nothing of the other workspace")

        // By keyboard: the arrow keys move between the run's views; Enter follows a link.
        yield* Effect.promise(async () => {
          await page.getByRole("tab", { name: "Overview" }).focus()
          await page.keyboard.press("ArrowRight")
          await page.waitForURL(/tab=steps/)
          await page.keyboard.press("End")
          await page.waitForURL(/tab=trace/)
        })
        assert.strictEqual(yield* Effect.promise(() => page.locator("[role=tab]:focus").textContent()), "Trace", "the focus follows the selected tab")
        yield* Effect.promise(async () => {
          await page.getByRole("link", { name: "AI Employees" }).focus()
          await page.keyboard.press("Enter")
          await page.getByRole("heading", { name: "AI Employees" }).waitFor()
          await page.getByLabel("Search").fill("Invoice")
          await page.waitForURL(/q=Invoice/)
          await page.getByRole("link", { name: "Invoice checker" }).waitFor()
          await page.getByLabel("Interaction").selectOption("chat")
          await page.getByText("No AI Employee matches.").waitFor()
          await page.getByLabel("Interaction").selectOption("form")
          await page.getByRole("link", { name: "Invoice checker" }).waitFor()
          await page.getByLabel("Search").fill("")
          await page.getByLabel("Archived").check()
          await page.getByRole("link", { name: "Old helper" }).waitFor()
        })
        assert.strictEqual(yield* Effect.promise(() => page.getByRole("link", { name: "Invoice checker" }).count()), 0, "only archived ones")

        // Workspace B: a user, who sees its runs, cancels nothing and answers nothing there.
        yield* Effect.promise(async () => {
          await page.getByLabel("Workspace").selectOption({ label: `Tenant ${other.slug}` })
          await page.locator(".who-role", { hasText: /· user$/ }).waitFor()
          await row(runB).waitFor()
        })
        assert.strictEqual(yield* Effect.promise(() => page.getByRole("checkbox").count()), 0, "no selection for a user")
        assert.strictEqual(yield* Effect.promise(() => page.getByRole("button", { name: /Cancel .*selected/ }).count()), 0)
        assert.strictEqual(yield* Effect.promise(() => row(runA).count()), 0, "nothing of the first workspace")
        yield* Effect.promise(async () => {
          await row(runB).getByRole("link", { name: runB.slice(-8) }).click()
          await page.getByRole("heading", { name: `Run ${runB.slice(-8)}` }).waitFor()
          await page.getByRole("link", { name: "Inbox" }).click()
          await page.getByText("Nothing waits for you.").waitFor()
        })

        // A run that is not there, and a page that is not there, say so.
        yield* Effect.promise(async () => {
          await page.goto(`${baseUrl}/runs/00000000-0000-4000-8000-000000000000`)
          await page.getByRole("alert").getByText("NOT_FOUND").waitFor()
          await page.getByRole("button", { name: "Try again" }).waitFor()
          await page.goto(`${baseUrl}/no-such-page`)
          await page.getByRole("heading", { name: "This page does not exist" }).waitFor()
          await page.getByRole("link", { name: "Go to the runs" }).click()
          await row(runB).waitFor()
        })

        // Signing out ends the session: the pages send a visitor to sign in, and back after.
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "Sign out" }).focus()
          await page.keyboard.press("Enter")
          await page.getByRole("heading", { name: "Sign in to Builder Platform" }).waitFor()
          await page.goto(`${baseUrl}/runs/${runB}`)
          await page.getByLabel("Email").waitFor()
        })
        assert.match(page.url(), /\/sign-in\?next=/)
        assert.strictEqual((yield* http("GET", `/api/v1/workflow/runs/${runA}`, { token: admin })).body.status, "paused", "nothing was cancelled on the way")
        assert.deepStrictEqual(problems(), [])
      })
  )
})

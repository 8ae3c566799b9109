import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Locator } from "playwright-core"
import { browserAvailable, signIn, watchedPage, workerBrowser, wrappedText } from "../support/Browser.js"
import { chatWorkflow, isTitleRequest, messagesOf } from "../support/Chat.js"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform } from "../support/TestPlatform.js"
import { answererDag, respondNode } from "../support/Workflows.js"

// Issue 39: chat in the console, the embeddable widget on another origin, the public app page.

const REPLY = ["Twenty-five ", "days ", "of ", "paid ", "leave ", "a ", "year."]

const configureChat = (token: string, workflowId: string) =>
  http("PUT", `/api/v1/workflow/workflows/${workflowId}/config`, {
    token,
    body: {
      welcome_message: "Hi! Ask me about leave.",
      welcome_buttons: [{ label: "Leave days", value: "How many days of leave do I get?" }],
      feedback_enabled: true,
      feedback_categories: ["wrong", "too long"]
    }
  }).pipe(Effect.tap((r) => assert.strictEqual(r.status, 200, r.text)))

interface Site {
  readonly origin: string
  /** What the page holds in its body (the widget's script tag). */
  body: string
  readonly close: () => Promise<void>
}

/** A customer's site on another origin (localhost, where the platform is 127.0.0.1, on its own port). */
const customerSite = Effect.acquireRelease(
  Effect.async<Site>((resume) => {
    const site = { body: "" } as { -readonly [K in keyof Site]: Site[K] }
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end(`<!doctype html><html><head><title>Acme support</title></head><body><h1>Acme</h1>${site.body}</body></html>`)
    })
    server.listen(0, "127.0.0.1", () => {
      site.origin = `http://localhost:${(server.address() as AddressInfo).port}`
      site.close = () => new Promise((r) => server.close(() => r()))
      resume(Effect.succeed(site))
    })
  }),
  (site) => Effect.promise(() => site.close())
)

layer(RunPlatformLive({ PUBLIC_APP_RUNS_PER_MINUTE: "2" }), { excludeTestServices: true, timeout: "120 seconds" })("the console in a browser: chat", (it) => {
  it.scoped.skipIf(!browserAvailable)(
    "a conversation: welcome, a suggested reply, the answer streamed, feedback with a category and a comment; rename, a new conversation, delete",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript((r) => isTitleRequest(r) ? { text: "Leave days" } : { text: "", chunks: REPLY, delayMs: 250 })
        const workflowId = yield* chatWorkflow(token)
        yield* configureChat(token, workflowId)
        const browser = yield* workerBrowser
        const { page, problems, shot } = yield* watchedPage(browser)
        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD)
        yield* Effect.promise(async () => {
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Chat" }).click()
          await page.getByText("Hi! Ask me about leave.").waitFor()
          await page.getByRole("group", { name: "Suggested replies" }).getByRole("button", { name: "Leave days" }).click()
          await page.getByLabel("Assistant (writing)").getByText("Twenty-five").waitFor({ timeout: 15_000 })
        })
        const streamed = yield* Effect.promise(() => page.getByLabel("Assistant (writing)").textContent())
        assert.notInclude(streamed ?? "", "year.", "the answer shows while the model still writes it")
        yield* Effect.promise(async () => {
          await page.getByLabel("Assistant", { exact: true }).getByText("Twenty-five days of paid leave a year.").waitFor({ timeout: 20_000 })
          await page.getByRole("button", { name: "Not helpful" }).click()
          await page.getByRole("group", { name: "Category" }).getByRole("button", { name: "too long" }).click()
          await page.getByLabel("Comment").fill("Say it in one word")
          await page.getByRole("button", { name: "Save comment" }).click()
          await page.getByText("Saved").waitFor()
        })
        yield* shot("chat")
        const sessionId = new URL(page.url()).searchParams.get("session")!
        const answer = (yield* messagesOf(token, sessionId)).find((m) => m.role === "assistant")!
        assert.deepInclude(answer.feedback, { sentiment: "negative", category: "too long", feedback_text: "Say it in one word" })

        // Rename, then a second conversation, then delete it: the first one stays.
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "Rename" }).click()
          await page.getByLabel("Title").fill("Holiday questions")
          await page.getByRole("button", { name: "Save title" }).click()
          await page.getByRole("heading", { name: "Holiday questions" }).waitFor()
          await page.getByRole("button", { name: "New conversation" }).click()
          await page.getByRole("heading", { name: "New conversation" }).waitFor()
          page.once("dialog", (d) => void d.accept())
          await page.getByRole("button", { name: "Delete" }).click()
          await page.getByRole("heading", { name: "Holiday questions" }).waitFor()
        })
        const sessions = yield* http("GET", `/api/v1/chat/sessions?workflow_id=${workflowId}`, { token })
        assert.deepStrictEqual(sessions.body.items.map((s: { title: string }) => s.title), ["Holiday questions"])
        assert.deepStrictEqual(problems(), [])
      })
  )

  it.scoped.skipIf(!browserAvailable)(
    "the chat widget on a customer's page of another origin: configured by the embed config, a streamed answer, feedback with a pill; refused on an origin its key does not list",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript((r) => isTitleRequest(r) ? { text: "Widget" } : { text: "", chunks: REPLY, delayMs: 200 })
        const workflowId = yield* chatWorkflow(token)
        yield* configureChat(token, workflowId)
        const acme = yield* customerSite
        const other = yield* customerSite
        const created = yield* http("POST", "/api/v1/auth/api-keys", {
          token,
          body: { name: "Acme widget", widget: { allowed_origins: [acme.origin], workflow_ids: [workflowId] } }
        })
        assert.strictEqual(created.status, 201, created.text)
        const key = created.body.key as string
        const tag = `<script src="${baseUrl}/widget.js" data-workflow-id="${workflowId}" data-key="${key}" async></script>`
        acme.body = tag
        other.body = tag
        const browser = yield* workerBrowser
        // The same tag copied onto a site the key does not name: the widget says so, and nothing is answered there.
        const refused = yield* watchedPage(browser, [/^403 .*\/api\/v1\/chat\/workflows\//])
        yield* Effect.promise(async () => {
          await refused.page.goto(other.origin)
          await refused.page.getByRole("button", { name: "Open the chat" }).click()
          await refused.page.getByText(`not allowed on pages of ${other.origin}`).waitFor()
        })
        assert.deepStrictEqual(refused.problems(), [])

        const { page, problems, shot } = yield* watchedPage(browser)
        yield* Effect.promise(async () => {
          await page.goto(acme.origin)
          await page.getByRole("button", { name: "Open the chat" }).click()
          await page.getByRole("dialog", { name: "Chat with Concierge" }).waitFor()
          await page.getByText("Hi! Ask me about leave.").waitFor()
          await page.getByLabel("Your message").fill("How many days of leave do I get?")
          await page.getByRole("button", { name: "Send" }).click()
          await page.locator("[data-role=assistant]").filter({ hasText: "Twenty-five" }).waitFor({ timeout: 15_000 })
        })
        const partial = yield* Effect.promise(() => page.locator("[data-role=assistant]").last().textContent())
        assert.notInclude(partial ?? "", "year.", "tokens show as they arrive")
        yield* Effect.promise(async () => {
          await page.locator("[data-role=assistant]").filter({ hasText: "Twenty-five days of paid leave a year." }).waitFor({ timeout: 20_000 })
          await page.getByRole("button", { name: "Helpful", exact: true }).click()
          await page.getByText("Thank you for the feedback.").waitFor()
          await page.getByRole("group", { name: "What best describes it?" }).getByRole("button", { name: "too long" }).click()
          await page.getByRole("group", { name: "What best describes it?" }).getByRole("button", { name: "too long", pressed: true }).waitFor()
        })
        yield* shot("chat-widget")
        const stored = yield* eventually(
          Effect.map(http("GET", `/api/v1/chat/sessions?workflow_id=${workflowId}`, { token }), (r) =>
            (r.body.items as Array<{ id: string; channel: string }>).find((s) => s.channel === "external")),
          "the widget's session"
        )
        const answer = (yield* messagesOf(token, stored.id)).find((m) =>
          m.role === "assistant"
        )
        assert.strictEqual(answer?.content, "Twenty-five days of paid leave a year.")
        yield* eventually(
          messagesOf(token, stored.id).pipe(Effect.map((m) => m.find((x) => x.role === "assistant")?.feedback?.category === "too long" ? true : undefined)),
          "the pill's category stored"
        )
        assert.strictEqual(answer?.feedback?.sentiment, "positive")
        assert.deepStrictEqual(problems(), [])
      })
  )

  it.scoped.skipIf(!browserAvailable)(
    "the public app page, without an account: the start node's form, the run's progress and result; the rate limit told politely",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript(() => ({ text: "Twenty-five days of paid leave a year." }))
        const workflowId = yield* publishedWorkflow(token, answererDag, { name: "Leave answers", description: "Ask about your leave." })
        const shared = yield* http("PATCH", `/api/v1/workflow/workflows/${workflowId}`, { token, body: { public_app: true } })
        assert.strictEqual(shared.status, 200, shared.text)
        const browser = yield* workerBrowser
        const { page, problems, shot } = yield* watchedPage(browser, [/^429 .*\/api\/v1\/workflow\/public\//])
        const ask = (question: string) =>
          Effect.promise(async () => {
            await page.getByLabel("Question *").fill(question)
            await page.getByRole("button", { name: "Run", exact: true }).click()
          })
        yield* Effect.promise(() => page.goto(`${baseUrl}/apps/${workflowId}`))
        yield* Effect.promise(() => page.getByRole("heading", { name: "Leave answers" }).waitFor())
        yield* ask("How many days of leave do I get?")
        yield* Effect.promise(async () => {
          await page.getByLabel("Result").getByText("Twenty-five days of paid leave a year.").waitFor({ timeout: 20_000 })
          await page.getByRole("list", { name: "Progress" }).getByText("completed").first().waitFor()
        })
        yield* shot("public-app")
        const runs = yield* http("GET", `/api/v1/workflow/workflows/${workflowId}/runs?trigger_type=app_public`, { token })
        assert.strictEqual(runs.body.total, 1)
        yield* Effect.promise(() => page.getByRole("button", { name: "Run again" }).click())
        yield* ask("And sick days?")
        yield* Effect.promise(() => page.getByRole("button", { name: "Run again" }).click({ timeout: 20_000 }))
        yield* ask("And parental leave?")
        yield* Effect.promise(() => page.getByText(/You can start another in \d+ seconds?\./).waitFor())
        assert.deepStrictEqual(problems(), [])
      })
  )

  it.scoped.skipIf(!browserAvailable)(
    "a question the chat's run asks, answered inline; a conversation handed to a person shown as such, its run stream refused",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript((r) => isTitleRequest(r) ? { text: "Plans" } : { text: `You chose: ${String(r.messages[0]?.content ?? "").replace(/^Use /, "")}` })
        const asking = yield* chatWorkflow(token, {
          nodes: [{
            id: "answer",
            type: "agent",
            name: "Answer",
            agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Use {{nodes.answer.hitl.value}}" },
            hitl: { type: "ask_human", prompt: "Which plan?", choices: ["basic", "pro"], assignee: { role: "user" } }
          }],
          edges: []
        })
        const me = yield* http("GET", "/api/v1/auth/users/me", { token })
        yield* http("PATCH", `/api/v1/auth/tenants/${me.body.user.tenant_id}/settings`, { token, body: { user_groups_enabled: true, ticketing_enabled: true } })
        const group = (yield* http("POST", "/api/v1/auth/groups", { token, body: { name: "Humans" } })).body.id as string
        yield* http("POST", `/api/v1/hcm-ticketing/groups/${group}/queue`, { token, body: { name: "Human help" } })
        const handing = yield* chatWorkflow(token, {
          nodes: [
            { id: "answer", type: "agent", name: "Answer", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Help" } },
            { id: "handoff", type: "live_agent_transfer", live_agent_transfer_config: { group_id: group, summary: "Needs a person" } }
          ],
          edges: [{ from: "answer", to: "handoff" }]
        })
        const browser = yield* workerBrowser
        const { page, problems, shot } = yield* watchedPage(browser, [/^503 .*\/stream$/])
        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD, `/chat?employee=${asking}`)
        yield* Effect.promise(async () => {
          await page.getByLabel("Message", { exact: true }).fill("Upgrade me")
          await page.getByRole("button", { name: "Send" }).click()
          await page.getByRole("heading", { name: "Which plan?" }).waitFor({ timeout: 20_000 })
          await page.getByRole("group", { name: "Choices" }).getByRole("button", { name: "pro" }).click()
          await page.getByLabel("Assistant", { exact: true }).getByText("You chose: pro").waitFor({ timeout: 20_000 })
        })
        yield* Effect.promise(async () => {
          // No run stream here (a proxy that refuses it, or a run over before the page saw it
          // running): the page learns of the handover from the messages it reads again.
          await page.route("**/api/v1/chat/runs/*/stream", (route) => route.fulfill({ status: 503, body: "" }))
          await page.goto(`${baseUrl}/chat?employee=${handing}`)
          await page.getByLabel("Message", { exact: true }).fill("I want a person")
          await page.getByRole("button", { name: "Send" }).click()
          await page.getByText("This conversation was handed over to a person").waitFor({ timeout: 20_000 })
          // The list of conversations learns it too (and the title the first answer gave it).
          await page.getByRole("link", { name: /Plans.*with a person/ }).waitFor({ timeout: 20_000 })
        })
        assert.isTrue(yield* Effect.promise(() => page.getByLabel("Message", { exact: true }).isDisabled()), "no more messages to the AI Employee")
        yield* shot("chat-handover")
        assert.deepStrictEqual(problems(), [])
      })
  )

  it.scoped.skipIf(!browserAvailable)(
    "a message refused by the workspace's run-start rate: told so with a countdown, the draft kept, Send held back until it may go; the run tab the same",
    () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript((r) => isTitleRequest(r) ? { text: "Leave" } : { text: "Twenty-five days." })
        const tenant = yield* createTenant(admin, `chat-rate-${Date.now().toString(36)}`)
        const limited = yield* http("PATCH", `/api/v1/auth/tenants/${tenant.id}/settings`, { token: admin, body: { max_run_starts_per_second: 1 } })
        assert.strictEqual(limited.status, 200, limited.text)
        const member = yield* createMember(admin, "system_admin", { tenantId: tenant.id })
        const token = yield* loginToken(member.email, member.password)
        const workflowId = yield* chatWorkflow(token)
        const browser = yield* workerBrowser
        const { page, problems, shot } = yield* watchedPage(browser, [
          /^429 .*\/api\/v1\/chat\/sessions\/[^/]+\/messages$/,
          /^429 .*\/api\/v1\/workflow\/workflows\/[^/]+\/run$/
        ])
        yield* signIn(page, baseUrl, member.email, member.password, `/chat?employee=${workflowId}`)
        const message = page.getByLabel("Message", { exact: true })
        const sendButton = page.getByRole("button", { name: "Send" })
        yield* Effect.promise(() => message.waitFor())
        // A long name and role at 1,360 px: the header's brand, links and button each keep to one line.
        assert.deepStrictEqual(yield* wrappedText(page, "header .brand, header nav a, header .who-name, header button"), [])
        // Other clients of the workspace take every start as it comes back (a start for an AI
        // Employee that does not exist still counts), so the page's start almost always meets the
        // limit; when it lands in the moment between, it is tried again.
        const takeStarts = Effect.forEach(
          [1, 2, 3, 4],
          () => http("POST", `/api/v1/workflow/workflows/${crypto.randomUUID()}/run`, { token, body: { input_params: {} } }).pipe(Effect.forever),
          { concurrency: "unbounded" }
        ).pipe(Effect.forkScoped, Effect.tap(() => Effect.sleep("200 millis")))
        /** Clicks `button` until the refusal shows (at most three times), `recover` after a start that went through. */
        const refusedOnClick = (button: Locator, refusal: Locator, started: () => Promise<unknown>, recover: () => Promise<unknown>) =>
          Effect.promise(async () => {
            for (let attempt = 1;; attempt++) {
              await button.click()
              const outcome = await Promise.race([
                refusal.waitFor({ timeout: 15_000 }).then(() => "refused" as const, () => "neither" as const),
                started().then(() => "started" as const, () => "neither" as const)
              ])
              if (outcome === "refused") return
              if (outcome === "neither" || attempt === 3) throw new Error(`the start was not refused (attempt ${attempt}: ${outcome})`)
              await recover()
            }
          })
        /**
         * Once the countdown says so, clicks `button` until `done` (at most three times): a taker's
         * start still in flight when it was stopped may have taken the next second's slot.
         */
        const goesOnceFree = (button: Locator, refusal: Locator, done: () => Promise<unknown>) =>
          Effect.promise(async () => {
            for (let attempt = 1;; attempt++) {
              await page.getByText("You can try again now.").waitFor({ timeout: 5_000 })
              await button.click()
              const outcome = await Promise.race([
                done().then(() => "done" as const, () => "neither" as const),
                refusal.waitFor({ timeout: 20_000 }).then(() => "refused" as const, () => "neither" as const)
              ])
              if (outcome === "done") return
              if (outcome === "neither" || attempt === 3) throw new Error(`the click once free did not go through (attempt ${attempt}: ${outcome})`)
            }
          })
        const taker = yield* takeStarts
        const question = "How many days of leave?"
        yield* Effect.promise(() => message.fill(question))
        yield* refusedOnClick(
          sendButton,
          page.getByText(/^Not sent: This workspace may start 1 run a second\. Your message is kept\. You can try again in 1 second\.$/),
          async () => {
            // Sent: the composer is emptied.
            for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
              if ((await message.inputValue()) === "") return
            }
            throw new Error("the message stayed in the composer")
          },
          async () => {
            await page.getByLabel("Assistant (writing)").waitFor({ state: "detached", timeout: 20_000 })
            await message.fill(question)
          }
        )
        assert.isTrue(yield* Effect.promise(() => sendButton.isDisabled()), "Send waits out the Retry-After")
        yield* Fiber.interrupt(taker)
        assert.strictEqual(yield* Effect.promise(() => message.inputValue()), question)
        yield* shot("chat-start-refused")
        yield* goesOnceFree(
          sendButton,
          page.getByText(/^Not sent: This workspace may start 1 run a second\..* You can try again in \d+ seconds?\.$/),
          () => page.getByLabel("Assistant", { exact: true }).getByText("Twenty-five days.").waitFor({ timeout: 20_000 })
        )
        assert.strictEqual(yield* Effect.promise(() => message.inputValue()), "")
        const sessionId = new URL(page.url()).searchParams.get("session")!
        // The question once more, then its answer (an exchange before them only if a try went through).
        assert.deepStrictEqual((yield* messagesOf(token, sessionId)).map((m) => m.content).slice(-2), [question, "Twenty-five days."])

        // The AI Employee's run tab says the same of a run it could not start.
        const flow = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
        yield* Effect.promise(() => page.goto(`${baseUrl}/ai-employees/${flow}?tab=run`))
        const startButton = page.getByRole("button", { name: "Start run" })
        yield* Effect.promise(() => startButton.waitFor())
        const again = yield* takeStarts
        yield* refusedOnClick(
          startButton,
          page.getByText(/^Not started: This workspace may start 1 run a second\. You can try again in 1 second\.$/),
          () => page.waitForURL(/\/runs\//, { timeout: 15_000 }),
          async () => {
            await page.goto(`${baseUrl}/ai-employees/${flow}?tab=run`)
            await startButton.waitFor()
          }
        )
        assert.isTrue(yield* Effect.promise(() => startButton.isDisabled()), "Start run waits out the Retry-After")
        yield* Fiber.interrupt(again)
        yield* shot("run-start-refused")
        yield* goesOnceFree(
          startButton,
          page.getByText(/^Not started: This workspace may start 1 run a second\..* You can try again in \d+ seconds?\.$/),
          () => page.waitForURL(/\/runs\//, { timeout: 20_000 })
        )
        assert.deepStrictEqual(problems(), [])
      })
  )
})

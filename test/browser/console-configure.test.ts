import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { browserAvailable, signIn, watchedPage, workerBrowser } from "../support/Browser.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform } from "../support/TestPlatform.js"
import { answererDag } from "../support/Workflows.js"

// Issue 35: what surrounds the canvas, in Chromium against the real platform: knowledge with
// uploads and a search preview, the agent test bench, triggers (a schedule previewed before it is
// saved, a webhook whose copied curl example starts a run, email, the public app), the details,
// clone and archive of an AI Employee, and its model configuration.

const shell = (script: string) =>
  Effect.promise(() =>
    new Promise<{ code: number; out: string }>((resolve) => {
      execFile(
        "bash",
        ["-c", script],
        { timeout: 20_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? 1), out: `${stdout}${stderr}` })
      )
    })
  )

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "180 seconds" })("the console in a browser: configure", (it) => {
  it.scoped.skipIf(!browserAvailable)(
    "knowledge uploaded into a folder and searched with citations; an agent tested and saved; triggers, details, clone, archive and models of an AI Employee",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const { baseUrl } = yield* TestPlatform
        model.setScript(() => ({ text: "Leave carries over until March." }))
        const id = yield* publishedWorkflow(token, answererDag, { name: "Front desk" })
        const browser = yield* workerBrowser
        const { page, problems, shot } = yield* watchedPage(browser, [/^404 .*\/schedule$/, /^400 .*\/schedule-preview$/])
        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD, "/knowledge")

        // Knowledge: a base, a file uploaded into a folder, indexed, found with a citation.
        yield* Effect.promise(async () => {
          await page.getByRole("form", { name: "New knowledge base" }).getByLabel("Name").fill("Handbook")
          await page.getByRole("button", { name: "New knowledge base" }).click()
          await page.getByRole("link", { name: "Handbook" }).click()
          await page.getByLabel(/^Files/).setInputFiles({
            name: "leave.txt",
            mimeType: "text/plain",
            buffer: Buffer.from("Unused leave carries over until the end of March.")
          })
          await page.getByLabel("Folder").fill("/hr")
          await page.getByRole("button", { name: "Upload" }).click()
          await page.getByText(/indexed · 1 passage/).waitFor()
          await page.getByRole("cell", { name: "/hr" }).waitFor()
          await page.getByRole("search").getByLabel("Question").fill("carry over")
          await page.getByRole("search").getByRole("button", { name: "Search" }).click()
          await page.getByText("[1] leave.txt").waitFor()
        })
        yield* shot("knowledge")

        // The agent bench: a dry run of a respond step, then saved under a name.
        yield* Effect.promise(async () => {
          await page.getByRole("link", { name: "Agents" }).click()
          await page.getByRole("form", { name: "Test an agent" }).getByLabel("Instructions").fill("Say what happens to leave")
          await page.getByRole("button", { name: "Run the agent" }).click()
          await page.getByRole("region", { name: "Test result" }).getByText("Leave carries over until March.").waitFor()
          await page.getByLabel("Save the tested agent as").fill("Leave explainer")
          await page.getByRole("button", { name: "Save definition" }).click()
          await page.getByRole("cell", { name: "Leave explainer" }).waitFor()
        })

        // Triggers: the schedule's next fire times before it is saved; saved and turned on.
        yield* Effect.promise(async () => {
          await page.goto(`${baseUrl}/ai-employees/${id}?tab=triggers`)
          const schedule = page.getByRole("form", { name: "Schedule" })
          await schedule.getByLabel("Time zone").selectOption("Europe/Berlin")
          await schedule.getByLabel("Cron expression").fill("30 8 * * 1")
          // Five Mondays at 8:30 in Berlin, as the server computes them (the preview follows the typing).
          const fires = schedule.getByRole("region", { name: "Next fire times" }).getByRole("listitem")
          await fires.filter({ hasText: /Mon.*08:30.*Europe\/Berlin/ }).nth(4).waitFor()
          assert.strictEqual(await fires.count(), 5)
          await schedule.getByLabel("Cron expression").fill("61 * * * *")
          await schedule.getByRole("alert").waitFor()
          await schedule.getByLabel("Cron expression").fill("30 8 * * 1")
          await schedule.getByRole("listitem").first().waitFor()
          await schedule.getByRole("button", { name: "Create schedule" }).click()
          await schedule.getByRole("button", { name: "Turn on" }).click()
          await schedule.getByText("on", { exact: true }).waitFor()
        })
        const saved = (yield* http("GET", `/api/v1/workflow/workflows/${id}/schedule`, { token })).body
        assert.deepStrictEqual([saved.cron, saved.timezone, saved.enabled], ["30 8 * * 1", "Europe/Berlin", true])
        yield* shot("triggers")

        // A webhook: its secret once, and a curl example that, run as it is copied, starts a run.
        const example = yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "New webhook" }).click()
          return (await page.getByLabel("curl example").textContent()) ?? ""
        })
        assert.include(example, "X-Signature-256: sha256=$SIG")
        if (existsSync("/usr/bin/curl") && existsSync("/usr/bin/openssl")) {
          const delivered = yield* shell(example)
          assert.strictEqual(delivered.code, 0, delivered.out)
          assert.include(delivered.out, "run_id", delivered.out)
        } else console.log("curl or openssl missing: the webhook's curl example is not run")
        yield* Effect.promise(async () => {
          await page.reload()
          await page.getByRole("region", { name: "Webhooks" }).locator(".mono").first().waitFor()
          assert.strictEqual(await page.getByText("Copy the secret now").count(), 0, "the secret is shown once")
          await page.getByRole("region", { name: "Inbound email" }).getByLabel(/Mail to this address/).click()
          await page.getByRole("region", { name: "Inbound email" }).getByText(`${id}@`).waitFor()
          await page.getByRole("region", { name: "Public app" }).getByLabel(/Anyone with the link/).click()
          await page.getByLabel("Public run URL").getByText(`/public/${id}/run`).waitFor()
        })
        // The card shows the URL as the box is ticked (optimistically); the change reaches the server after it.
        yield* eventually(
          Effect.map(http("GET", `/api/v1/workflow/workflows/${id}`, { token }), (r) => (r.body.public_app === true ? true : undefined)),
          "the public app switched on"
        )

        // Details, models, clone, archive and restore.
        yield* Effect.promise(async () => {
          await page.getByRole("tab", { name: "Settings" }).click()
          const details = page.getByRole("form", { name: "Details" })
          await details.getByLabel("Category").fill("Support")
          await details.getByLabel("Icon").fill("☎")
          await details.getByRole("button", { name: "Save details" }).click()
          await details.getByText("Details saved").waitFor()
          await page.getByRole("tab", { name: "Models and chat" }).click()
          const models = page.getByRole("form", { name: "Models" })
          await models.getByLabel("Models allowed").selectOption("SELECTED")
          await models.getByLabel(/Selected models/).fill("test-model")
          await models.getByLabel("Optimise for").selectOption("CHEAPEST")
          await models.getByRole("button", { name: "Save model settings" }).click()
          await models.getByText("Model settings saved").waitFor()
          const chat = page.getByRole("form", { name: "Chat settings" })
          await chat.getByLabel("Welcome message").fill("Hello! Ask me about leave.")
          await chat.getByLabel(/Welcome buttons/).fill("Leave = leave\nPay")
          await chat.getByRole("button", { name: "Save chat settings" }).click()
          await chat.getByText("Chat settings saved").waitFor()
        })
        const config = (yield* http("GET", `/api/v1/workflow/workflows/${id}/config`, { token })).body
        assert.deepStrictEqual([config.llm_mode, config.selected_model_ids, config.optimization_priority], ["SELECTED", ["test-model"], "CHEAPEST"])
        assert.deepStrictEqual(config.welcome_buttons, [{ label: "Leave", value: "leave" }, { label: "Pay", value: "Pay" }])
        assert.strictEqual((yield* http("GET", `/api/v1/workflow/workflows/${id}`, { token })).body.category, "Support")
        yield* Effect.promise(async () => {
          await page.getByRole("tab", { name: "Settings" }).click()
          await page.getByRole("button", { name: "Clone" }).click()
          await page.getByRole("heading", { name: /Front desk \(Copy\)/ }).waitFor()
          page.on("dialog", (d) => void d.accept())
          await page.getByRole("tab", { name: "Settings" }).click()
          await page.getByRole("button", { name: "Archive" }).click()
          await page.getByRole("button", { name: "Restore" }).waitFor()
          await page.getByRole("button", { name: "Restore" }).click()
          await page.getByRole("button", { name: "Archive" }).waitFor()
        })
        assert.deepStrictEqual(problems(), [])
      })
  )
})

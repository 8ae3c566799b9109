import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { browserAvailable, signIn, watchedPage, workerBrowser } from "../support/Browser.js"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { mcpPeer } from "../support/McpPeer.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform } from "../support/TestPlatform.js"

// Issue 39: tickets and administration in the console.

const desk = "/api/v1/hcm-ticketing"

layer(RunPlatformLive({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.2" }), { excludeTestServices: true, timeout: "120 seconds" })(
  "the console in a browser: tickets",
  (it) => {
    it.scoped.skipIf(!browserAvailable)(
      "a ticket raised in a queue, commented on (public and internal), taken in progress, assigned, a sub-ticket, moved to another queue, closed with a resolution; its timeline; my tickets",
      () =>
        Effect.gen(function*() {
          const token = yield* adminToken
          const { baseUrl } = yield* TestPlatform
          const browser = yield* workerBrowser
          // Before ticketing is turned on the page says so, under its heading (the desk answers 404).
          const off = yield* watchedPage(browser, [/^404 .*\/api\/v1\/hcm-ticketing\//])
          yield* signIn(off.page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD, "/tickets")
          yield* Effect.promise(() => off.page.getByText("Ticketing is not turned on for this workspace").waitFor())
          assert.deepStrictEqual(yield* Effect.promise(() => off.page.locator("main h1").allInnerTexts()), ["Tickets"])
          yield* off.shot("tickets-off")
          assert.deepStrictEqual(off.problems(), [])
          const me = yield* http("GET", "/api/v1/auth/users/me", { token })
          yield* http("PATCH", `/api/v1/auth/tenants/${me.body.user.tenant_id}/settings`, {
            token,
            body: { user_groups_enabled: true, ticketing_enabled: true }
          })
          const group = (yield* http("POST", "/api/v1/auth/groups", { token, body: { name: "Support" } })).body.id as string
          const bound = yield* http("POST", `${desk}/groups/${group}/queue`, { token, body: { name: "Customer Support" } })
          assert.strictEqual(bound.status, 201, bound.text)
          const facilities = (yield* http("POST", "/api/v1/auth/groups", { token, body: { name: "Facilities" } })).body.id as string
          assert.strictEqual((yield* http("POST", `${desk}/groups/${facilities}/queue`, { token, body: { name: "Facilities desk" } })).status, 201)
          const { page, problems, shot } = yield* watchedPage(browser)
          yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD)
          yield* Effect.promise(async () => {
            await page.getByRole("heading", { name: "Runs" }).waitFor()
            await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tickets" }).click()
            await page.getByRole("navigation", { name: "Queues" }).getByRole("link", { name: "Customer Support" }).click()
            await page.getByRole("button", { name: "New ticket" }).click()
            const form = page.getByRole("form", { name: "New ticket" })
            await form.getByLabel("Title").fill("The printer is on fire")
            await form.getByLabel("Description").fill("Third floor, next to the kitchen.")
            await form.getByLabel("Priority").selectOption("HIGH")
            await page.getByRole("button", { name: "Raise ticket" }).click()
            await page.getByRole("heading", { name: "The printer is on fire" }).waitFor()
            await page.getByLabel("Comment", { exact: true }).fill("Someone is on the way.")
            await page.getByRole("button", { name: "Add comment" }).click()
            await page.getByText("Someone is on the way.").waitFor()
            await page.getByLabel("Comment", { exact: true }).fill("Facilities called.")
            await page.getByLabel("Internal note (the requester does not see it)").check()
            await page.getByRole("button", { name: "Add comment" }).click()
            await page.getByText("internal note").waitFor()
            await page.getByLabel("Status").selectOption("IN_PROGRESS")
            await page.locator(".page-head .badge").getByText("in_progress").waitFor()
            await page.getByLabel("Assignee").fill(ADMIN_EMAIL)
            await page.getByRole("button", { name: "Assign", exact: true }).click()
            await page.getByRole("complementary").getByText(ADMIN_EMAIL).first().waitFor()
            await page.getByLabel("Sub-ticket title").fill("Buy a new printer")
            await page.getByRole("button", { name: "Raise sub-ticket" }).click()
            await page.getByRole("link", { name: /Buy a new printer/ }).waitFor()
            await page.getByLabel("Move to").selectOption({ label: "Facilities desk" })
            await page.getByRole("button", { name: "Move", exact: true }).click()
            await page.getByRole("link", { name: "queue:facilities-desk" }).waitFor()
            await page.getByLabel("Resolution").fill("Fire put out")
            await page.getByRole("button", { name: "Close ticket" }).click()
            await page.getByText("Resolution: Fire put out").waitFor()
            await page.getByRole("region", { name: "Activity" }).getByText("status IN_PROGRESS → CLOSED").waitFor()
          })
          yield* shot("ticket")
          const list = yield* http("GET", `${desk}/groups/${facilities}/tickets?q=printer%20is`, { token })
          const ticket = list.body.items[0]
          assert.deepInclude(ticket, {
            title: "The printer is on fire",
            status: "CLOSED",
            priority: "HIGH",
            assignee_email: null, // a move clears the assignee (02, Ticket: move)
            resolution: "Fire put out"
          })
          const comments = yield* http("GET", `${desk}/groups/${facilities}/tickets/${ticket.id}/comments`, { token })
          assert.deepStrictEqual(comments.body.items.map((c: { visibility: string }) => c.visibility), ["public", "internal"])
          yield* Effect.promise(async () => {
            await page.getByRole("link", { name: "Tickets" }).first().click()
            await page.getByRole("link", { name: "My tickets" }).click()
            await page.getByRole("table", { name: "My tickets" }).getByRole("link", { name: "The printer is on fire" }).waitFor()
          })
          assert.deepStrictEqual(problems(), [])
        })
    )

    it.scoped.skipIf(!browserAvailable)(
      "administration: an MCP server a builder registered reviewed and approved; an API key made (its secret shown once) and revoked; the retention set; the audit log; a model provider; an integration installed with a function and credentials; a person added, given a role, disabled; a group with that person as its admin; a workspace created",
      () =>
        Effect.gen(function*() {
          const token = yield* adminToken
          const { baseUrl } = yield* TestPlatform
          const mcp = yield* mcpPeer
          const builder = yield* createMember(token, "builder")
          const builderToken = (yield* http("POST", "/api/v1/auth/login", { body: { email: builder.email, password: builder.password } })).body
            .access_token as string
          const registered = yield* http("POST", "/api/v1/integrations/mcp-servers", {
            token: builderToken,
            body: { name: "Echo tools", server_url: `${mcp.baseUrl}/mcp` }
          })
          assert.strictEqual(registered.status, 201, registered.text)
          assert.strictEqual(registered.body.status, "pending_review")
          const browser = yield* workerBrowser
          // A workspace without single sign-on answers its SSO settings 404: the page shows an empty form.
          const { page, problems, shot } = yield* watchedPage(browser, [
            /^404 .*\/api\/v1\/auth\/tenants\/[0-9a-f-]+\/sso$/,
            // The workspace's only env_admin tries to demote themselves: refused, and said so.
            /^409 .*\/api\/v1\/auth\/users\/[0-9a-f-]+$/
          ])
          yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD)
          yield* Effect.promise(async () => {
            await page.getByRole("heading", { name: "Runs" }).waitFor()
            await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click()
            await page.getByRole("tab", { name: "MCP servers" }).click()
            const card = page.getByRole("listitem", { name: "Echo tools" })
            await card.getByText("pending review").waitFor()
            await card.getByRole("button", { name: "Review tools" }).click()
            await card.getByRole("list", { name: "Tools of Echo tools" }).getByText("Echoes its text").waitFor()
            await card.getByRole("button", { name: "Approve" }).click()
            await card.getByText("active", { exact: true }).waitFor()
          })
          yield* shot("admin-mcp")
          const approved = yield* http("GET", `/api/v1/integrations/mcp-servers/${registered.body.id}`, { token })
          assert.strictEqual(approved.body.status, "active")

          yield* Effect.promise(async () => {
            await page.getByRole("tab", { name: "API keys" }).click()
            await page.getByRole("form", { name: "New API key" }).getByLabel("Name").fill("Reporting")
            await page.getByLabel("read", { exact: true }).check()
            await page.getByLabel("workflow", { exact: true }).check()
            await page.getByRole("button", { name: "Create key" }).click()
            await page.getByText("Copy the key now: it is shown only once.").waitFor()
          })
          const secret = yield* Effect.promise(() => page.getByLabel("The new key").textContent())
          const viaKey = yield* http("GET", "/api/v1/workflow/workflows", { apiKey: secret ?? "" })
          assert.strictEqual(viaKey.status, 200, "the key shown works")
          assert.strictEqual((yield* http("POST", "/api/v1/workflow/workflows", { apiKey: secret ?? "", body: { name: "x" } })).status, 403, "read only")
          yield* Effect.promise(async () => {
            page.once("dialog", (d) => void d.accept())
            await page.getByRole("row", { name: /Reporting/ }).getByRole("button", { name: "Revoke" }).click()
            await page.getByRole("row", { name: /Reporting/ }).getByText("revoked").waitFor()
          })
          assert.strictEqual((yield* http("GET", "/api/v1/workflow/workflows", { apiKey: secret ?? "" })).status, 401, "revoked at once")

          yield* Effect.promise(async () => {
            await page.getByRole("tab", { name: "Workspace" }).click()
            await page.getByLabel("Keep finished runs (days)").fill("14")
            await page.getByRole("button", { name: "Save settings" }).click()
            await page.getByText("Settings saved").waitFor()
            await page.getByLabel("Workspace name").fill("Acme")
            await page.getByLabel("Slug").fill("acme-two")
            await page.getByRole("button", { name: "Create workspace" }).click()
            await page.getByRole("cell", { name: "acme-two" }).waitFor()
            await page.getByRole("tab", { name: "Audit log" }).click()
            await page.getByRole("table", { name: "Audit log" }).getByText("tenant.settings_updated").first().waitFor()
          })
          const retention = yield* http("GET", "/api/v1/workflow/retention", { token })
          assert.strictEqual(retention.body.run_retention_days, 14)
          // A model provider of the workspace's own; an integration of the catalog installed, a function enabled, its credentials set.
          const entry = yield* http("POST", "/api/v1/integrations/catalog", {
            token,
            body: {
              name: "orders",
              base_url: mcp.baseUrl,
              auth: { type: "bearer" },
              functions: [{
                name: "place",
                kind: "http",
                method: "POST",
                path: "/orders",
                input_schema: { type: "object", properties: { item: { type: "string" } } }
              }]
            }
          })
          assert.strictEqual(entry.status, 201, entry.text)
          yield* Effect.promise(async () => {
            await page.getByRole("tab", { name: "Model providers" }).click()
            await page.getByLabel("Provider name").fill("acme-llm")
            await page.getByLabel("Base URL").fill("http://127.0.0.2:9/v1")
            await page.getByLabel("Models (ids, comma or space separated)").fill("acme-large, acme-small")
            await page.getByRole("button", { name: "Add provider" }).click()
            await page.getByRole("table", { name: "Model providers" }).getByText("acme-large, acme-small").waitFor()
            await page.getByRole("tab", { name: "Integrations" }).click()
            await page.getByRole("button", { name: "Install orders" }).click()
            const card = page.getByRole("listitem", { name: "orders" })
            await card.getByRole("checkbox", { name: /place/ }).click()
            await card.getByRole("checkbox", { name: /place/ }).and(page.locator(":checked")).waitFor()
            await card.getByLabel("Credentials (JSON)").fill(JSON.stringify({ token: "t-123" }))
            await card.getByRole("button", { name: "Save credentials" }).click()
            await card.getByText("Credentials saved (sealed)").waitFor()
          })
          const providers = yield* http("GET", "/api/v1/workflow/llm-providers", { token })
          assert.deepStrictEqual(providers.body.items.map((p: { name: string }) => p.name), ["acme-llm"])
          const installs = yield* http("GET", "/api/v1/integrations/integrations", { token })
          assert.deepInclude(installs.body.items[0], { enabled_functions: ["place"], has_agent_tool_credentials: true })

          yield* Effect.promise(async () => {
            await page.getByRole("tab", { name: "People" }).click()
            const form = page.getByRole("form", { name: "Add a person" })
            await form.getByLabel("Email").fill("ada@example.com")
            await form.getByLabel("Name").fill("Ada")
            await form.getByLabel("Role").selectOption("builder")
            await form.getByRole("button", { name: "Add" }).click()
            await page.getByLabel("Role of ada@example.com").selectOption("builder_admin")
            await page.getByRole("row", { name: /ada@example.com/ }).getByRole("button", { name: "Disable" }).click()
            await page.getByRole("row", { name: /ada@example.com/ }).getByRole("button", { name: "Enable" }).waitFor()
            await page.getByRole("row", { name: /ada@example.com/ }).getByText("disabled", { exact: true }).waitFor()
            const mine = page.getByRole("row", { name: new RegExp(ADMIN_EMAIL) })
            await mine.getByText("(you)").waitFor()
            const asked: Array<string> = []
            page.once("dialog", (d) => {
              asked.push(d.message())
              void d.accept()
            })
            await page.getByLabel(`Role of ${ADMIN_EMAIL}`).selectOption("user")
            await page.getByText(/last active env_admin/).waitFor()
            assert.match(asked[0] ?? "", /Change your own role to user/)
            assert.strictEqual(await page.getByLabel(`Role of ${ADMIN_EMAIL}`).inputValue(), "env_admin")
          })
          yield* shot("people-last-admin")
          yield* Effect.promise(async () => {
            await page.getByRole("tab", { name: "Groups" }).click()
            await page.getByLabel("Group name").fill("Night shift")
            await page.getByRole("button", { name: "Create group" }).click()
            await page.getByRole("button", { name: "Night shift" }).click()
            await page.getByRole("combobox", { name: /^Add/ }).selectOption({ label: "Ada (ada@example.com)" })
            await page.getByLabel("group admin").check()
            await page.getByRole("button", { name: "Add", exact: true }).click()
            await page.getByText("Ada (ada@example.com) · group admin").waitFor()
          })
          const people = yield* http("GET", "/api/v1/auth/users?page_size=100", { token })
          assert.deepInclude(people.body.items.find((u: { email: string }) => u.email === "ada@example.com"), { role: "builder_admin", status: "disabled" })
          assert.deepStrictEqual(problems(), [])

          // A user_admin is offered only its tabs and the roles it may grant, and members above it are read-only.
          const userAdmin = yield* createMember(token, "user_admin")
          const asUserAdmin = yield* watchedPage(browser)
          yield* signIn(asUserAdmin.page, baseUrl, userAdmin.email, userAdmin.password, "/admin")
          const offered = yield* Effect.promise(async () => {
            const p = asUserAdmin.page
            await p.getByRole("table", { name: "People" }).waitFor()
            await p.getByRole("row", { name: new RegExp(ADMIN_EMAIL) }).getByText("above your role").waitFor()
            return {
              tabs: await p.getByRole("tablist", { name: "Administration" }).getByRole("tab").allTextContents(),
              form: await p.getByRole("form", { name: "Add a person" }).getByLabel("Role").locator("option").allTextContents(),
              builder: await p.getByLabel(`Role of ${builder.email}`).locator("option").allTextContents(),
              aboveEditable: await p.getByLabel(`Role of ${ADMIN_EMAIL}`).count(),
              aboveButtons: await p.getByRole("row", { name: new RegExp(ADMIN_EMAIL) }).getByRole("button").count()
            }
          })
          assert.deepStrictEqual(offered, {
            tabs: ["People", "Groups", "API keys", "Audit log"],
            form: ["user_admin", "builder", "user", "no_access"],
            builder: ["user_admin", "builder", "user", "no_access"],
            aboveEditable: 0,
            aboveButtons: 0
          })
          yield* asUserAdmin.shot("people-user-admin")
          assert.deepStrictEqual(asUserAdmin.problems(), [])
        })
    )
  }
)

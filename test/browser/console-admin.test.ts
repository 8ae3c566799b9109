import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { freePort } from "../../platform/FreePort.js"
import { browserAvailable, signIn, watchedPage, workerBrowser } from "../support/Browser.js"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { CLIENT_ID, CLIENT_SECRET, OidcProvider, providerLoginInBrowser } from "../support/OidcProvider.js"
import { peerApi } from "../support/PeerApi.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform, TestPlatformLive } from "../support/TestPlatform.js"

// Issue 39: a person's OAuth connection made through the authorization server's pages and the
// console's callback page; a queue's tickets filtered, sorted and paged; a workspace's limits set
// by an env_admin (and not offered to its own admins).

const integrations = "/api/v1/integrations"
const desk = "/api/v1/hcm-ticketing"

const Live = Layer.unwrapEffect(
  Effect.gen(function*() {
    const port = yield* freePort
    return TestPlatformLive({ env: { PORT: String(port), OUTBOUND_ALLOWED_HOSTS: "127.0.0.1,127.0.0.2" } })
      .pipe(Layer.merge(OidcProvider.layer(`http://127.0.0.1:${port}/integrations/oauth2/callback`, { refreshTokens: true })))
  })
)

const titlesIn = (page: Page) => page.getByRole("table", { name: "Tickets" }).locator("tbody tr td:nth-child(2)").allTextContents()

/** The table shows exactly these titles, in this order. */
const showsTitles = (page: Page, expected: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    const want = JSON.stringify(expected)
    for (let i = 0; i < 100; i++) {
      if (JSON.stringify(await titlesIn(page)) === want) return
      await page.waitForTimeout(50)
    }
    assert.deepStrictEqual(await titlesIn(page), expected)
  })

layer(Live, { excludeTestServices: true, timeout: "120 seconds" })("the console in a browser: administration and queues", (it) => {
  it.scoped.skipIf(!browserAvailable)(
    "an integration's OAuth connection: connect through the authorization server's pages, back on the callback page, used by a call, disconnected",
    () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const { baseUrl } = yield* TestPlatform
        const { issuer } = yield* OidcProvider
        const peer = yield* peerApi("http://127.0.0.2:9/")
        const entry = yield* http("POST", `${integrations}/catalog`, {
          token: admin,
          body: {
            name: "oauth-peer",
            base_url: peer.baseUrl,
            auth: { type: "oauth2", authorize_url: `${issuer}/auth`, token_url: `${issuer}/token`, scopes: ["openid", "offline_access"] },
            functions: [{ name: "profile", kind: "http", method: "GET", path: "/profile" }]
          }
        })
        assert.strictEqual(entry.status, 201, entry.text)
        const browser = yield* workerBrowser
        // Not connected yet (and again once disconnected): the connection's read is 404.
        const { page, problems, shot } = yield* watchedPage(browser, [/^404 .*\/integrations\/[0-9a-f-]+\/connections\/me$/], { foreignOrigins: [issuer] })
        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD)
        const card = page.getByRole("listitem", { name: "oauth-peer" })
        yield* Effect.promise(async () => {
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click()
          await page.getByRole("tab", { name: "Integrations" }).click()
          await page.getByRole("button", { name: "Install oauth-peer" }).click()
          await card.getByRole("checkbox", { name: /profile/ }).click()
          await card.getByRole("checkbox", { name: /profile/ }).and(page.locator(":checked")).waitFor()
          await card.getByLabel("Credentials (JSON)").fill(JSON.stringify({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET }))
          await card.getByRole("button", { name: "Save credentials" }).click()
          await card.getByText("Credentials saved (sealed)").waitFor()
          await card.getByText("Your account is not connected.").waitFor()
          await card.getByRole("button", { name: "Connect my account (OAuth)" }).click()
        })
        yield* providerLoginInBrowser(page, issuer, "ada@example.test")
        yield* Effect.promise(async () => {
          await page.waitForURL((url) => url.origin === baseUrl && url.pathname === "/integrations/oauth2/callback")
          await page.getByRole("status").getByText("Your account is connected.").waitFor()
        })
        yield* shot("oauth-callback")
        const installs = yield* http("GET", `${integrations}/integrations`, { token: admin })
        const id = installs.body.items[0].id as string
        const me = yield* http("GET", `${integrations}/integrations/${id}/connections/me`, { token: admin })
        assert.strictEqual(me.status, 200, me.text)
        assert.deepInclude(me.body, { connected: true, has_refresh_token: true })
        const call = yield* http("POST", `${integrations}/execute`, { token: admin, body: { function_name: "profile" } })
        assert.strictEqual(call.body.status, "success", call.text)
        assert.match(call.body.output.authorization, /^Bearer \S+$/, "the call carried the person's token")

        // The callback page's way back, then disconnected; the same page opened again does nothing.
        yield* Effect.promise(async () => {
          await page.getByRole("link", { name: "Back to the integrations" }).click()
          await card.getByText("Your account is connected.").waitFor()
          await card.getByRole("button", { name: "Disconnect" }).click()
          await card.getByText("Your account is not connected.").waitFor()
          await page.goto(`${baseUrl}/integrations/oauth2/callback?code=stale&state=stale`)
          await page.getByText("No connection is being made here.").waitFor()
        })
        assert.strictEqual((yield* http("GET", `${integrations}/integrations/${id}/connections/me`, { token: admin })).status, 404)
        assert.deepStrictEqual(problems(), [])
      })
  )

  it.scoped.skipIf(!browserAvailable)(
    "a queue's tickets: the status, priority and text filters, each sort both ways, 25 a page with more, kept in the address across a reload",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const { baseUrl } = yield* TestPlatform
        const me = yield* http("GET", "/api/v1/auth/users/me", { token })
        yield* http("PATCH", `/api/v1/auth/tenants/${me.body.user.tenant_id}/settings`, { token, body: { user_groups_enabled: true, ticketing_enabled: true } })
        const group = (yield* http("POST", "/api/v1/auth/groups", { token, body: { name: "Helpdesk" } })).body.id as string
        assert.strictEqual((yield* http("POST", `${desk}/groups/${group}/queue`, { token, body: { name: "Helpdesk queue" } })).status, 201)
        const raise = (title: string, priority: string) =>
          Effect.map(
            http("POST", `${desk}/groups/${group}/tickets`, { token, body: { title, priority, description: "" } }),
            (r) => r.body.id as string
          )
        for (let n = 1; n <= 24; n++) yield* raise(`Routine check ${n}`, "LOW")
        yield* raise("Alpha printer jam", "MEDIUM")
        yield* raise("Bravo network down", "CRITICAL")
        const charlie = yield* raise("Charlie printer toner", "HIGH")
        yield* http("POST", `${desk}/groups/${group}/tickets/${charlie}/status`, { token, body: { status: "IN_PROGRESS" } })
        const apiTitles = (query: string) =>
          Effect.map(
            http("GET", `${desk}/groups/${group}/tickets?${query}`, { token }),
            (r) => (r.body.items as ReadonlyArray<{ title: string }>).map((t) => t.title)
          )

        const browser = yield* workerBrowser
        const { page, problems, shot } = yield* watchedPage(browser)
        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD)
        const filters = page.getByRole("form", { name: "Filters" })
        yield* Effect.promise(async () => {
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tickets" }).click()
          await page.getByRole("navigation", { name: "Queues" }).getByRole("link", { name: "Helpdesk queue" }).click()
        })
        // Newest first, 25 a page; "More" brings the rest.
        const newest = yield* apiTitles("")
        assert.strictEqual(newest[0], "Charlie printer toner")
        yield* showsTitles(page, newest)
        yield* Effect.promise(() => page.getByRole("button", { name: "More" }).click())
        yield* showsTitles(page, [
          ...newest,
          ...(yield* apiTitles(`cursor=${(yield* http("GET", `${desk}/groups/${group}/tickets`, { token })).body.next_cursor}`))
        ])
        assert.strictEqual((yield* Effect.promise(() => titlesIn(page))).length, 27)

        yield* Effect.promise(() => filters.getByLabel("Priority", { exact: true }).selectOption("CRITICAL"))
        yield* showsTitles(page, ["Bravo network down"])
        yield* Effect.promise(async () => {
          await filters.getByLabel("Priority", { exact: true }).selectOption("")
          await filters.getByLabel("Status", { exact: true }).selectOption("IN_PROGRESS")
        })
        yield* showsTitles(page, ["Charlie printer toner"])
        yield* Effect.promise(async () => {
          await filters.getByLabel("Status", { exact: true }).selectOption("")
          await filters.getByLabel("Search", { exact: true }).fill("printer")
          await filters.getByLabel("Search", { exact: true }).press("Enter")
        })
        yield* showsTitles(page, ["Charlie printer toner", "Alpha printer jam"])

        for (const sort of ["priority", "status", "number", "updated_at"]) {
          yield* Effect.promise(() => filters.getByLabel("Sort", { exact: true }).selectOption(sort))
          const descending = yield* apiTitles(`q=printer&sort=${sort}&order=desc`)
          yield* showsTitles(page, descending)
          yield* Effect.promise(() => filters.getByLabel("Order", { exact: true }).selectOption("asc"))
          yield* showsTitles(page, yield* apiTitles(`q=printer&sort=${sort}&order=asc`))
          yield* Effect.promise(() => filters.getByLabel("Order", { exact: true }).selectOption("desc"))
        }
        yield* Effect.promise(async () => {
          await filters.getByLabel("Sort", { exact: true }).selectOption("priority")
          await filters.getByLabel("Order", { exact: true }).selectOption({ label: "critical first" })
        })
        const byPriority = yield* apiTitles("q=printer&sort=priority&order=asc")
        assert.deepStrictEqual(byPriority, ["Charlie printer toner", "Alpha printer jam"], "HIGH before MEDIUM")
        yield* Effect.promise(() => page.reload())
        yield* showsTitles(page, byPriority)
        assert.strictEqual(yield* Effect.promise(() => filters.getByLabel("Search", { exact: true }).inputValue()), "printer")
        assert.strictEqual(yield* Effect.promise(() => filters.getByLabel("Sort", { exact: true }).inputValue()), "priority")
        yield* shot("ticket-filters")
        assert.deepStrictEqual(problems(), [])
      })
  )

  it.scoped.skipIf(!browserAvailable)(
    "a workspace's limits set by an env_admin; its own admin sees the other settings but not the limits",
    () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const { baseUrl } = yield* TestPlatform
        const tenantId = (yield* http("GET", "/api/v1/auth/users/me", { token })).body.user.tenant_id as string
        const browser = yield* workerBrowser
        const noSso = [/^404 .*\/api\/v1\/auth\/tenants\/[0-9a-f-]+\/sso$/]
        const { page, problems, shot } = yield* watchedPage(browser, noSso)
        yield* signIn(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD)
        const form = page.getByRole("form", { name: "Workspace settings" })
        yield* Effect.promise(async () => {
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click()
          await page.getByRole("tab", { name: "Workspace" }).click()
          await form.getByLabel("Runs in flight (per runner)").fill("6")
          await form.getByLabel("Model calls in flight").fill("4")
          await form.getByLabel("Run starts a second").fill("9")
          await form.getByRole("button", { name: "Save settings" }).click()
          await form.getByText("Settings saved").waitFor()
        })
        yield* shot("tenant-limits")
        const settings = yield* http("GET", `/api/v1/auth/tenants/${tenantId}/settings`, { token })
        assert.deepInclude(settings.body.settings, { max_runs_in_flight: 6, max_model_calls_in_flight: 4, max_run_starts_per_second: 9 })

        const own = yield* createMember(token, "system_admin")
        const theirs = yield* watchedPage(browser, noSso)
        yield* signIn(theirs.page, baseUrl, own.email, own.password)
        const theirForm = theirs.page.getByRole("form", { name: "Workspace settings" })
        yield* Effect.promise(async () => {
          await theirs.page.getByRole("heading", { name: "Runs" }).waitFor()
          await theirs.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click()
          await theirs.page.getByRole("tab", { name: "Workspace" }).click()
          await theirForm.getByLabel("Keep finished runs (days)").waitFor()
        })
        assert.strictEqual(yield* Effect.promise(() => theirForm.getByLabel("Model calls in flight").count()), 0)
        yield* Effect.promise(async () => {
          await theirForm.getByLabel("Keep finished runs (days)").fill("21")
          await theirForm.getByRole("button", { name: "Save settings" }).click()
          await theirForm.getByText("Settings saved").waitFor()
        })
        const after = yield* http("GET", `/api/v1/auth/tenants/${tenantId}/settings`, { token })
        assert.deepInclude(after.body.settings, { run_retention_days: 21, max_model_calls_in_flight: 4 }, "the limits stay as the env_admin set them")
        assert.deepStrictEqual([...problems(), ...theirs.problems()], [])
      })
  )
})

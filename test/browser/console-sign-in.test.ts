import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { freePort } from "../../platform/FreePort.js"
import { currentTotp } from "../../services/auth/Totp.js"
import { browserAvailable, signIn, watchedPage, workerBrowser } from "../support/Browser.js"
import { adminToken, createMember, uniqueEmail } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { CLIENT_ID, CLIENT_SECRET, OidcProvider, providerLoginInBrowser } from "../support/OidcProvider.js"
import { mailedCode, SmtpInbox } from "../support/SmtpInbox.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform, TestPlatformLive } from "../support/TestPlatform.js"

// Issue 33: every way of signing in, in a real browser: a code by mail, an authenticator app
// (set up at sign-in when the workspace requires one), and the workspace's identity provider.

const Live = Layer.unwrapEffect(
  Effect.gen(function*() {
    const inbox = yield* SmtpInbox
    const port = yield* freePort
    const redirectUri = `http://127.0.0.1:${port}/api/v1/auth/auth/sso/callback`
    return TestPlatformLive({ env: { PORT: String(port), OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", SMTP_URL: `smtp://127.0.0.1:${inbox.port}` } })
      .pipe(Layer.merge(OidcProvider.layer(redirectUri)))
  })
).pipe(Layer.provideMerge(SmtpInbox.layer))

const codeFor = mailedCode

const begin = (page: Page, baseUrl: string, email: string) =>
  Effect.promise(async () => {
    await page.goto(`${baseUrl}/`)
    await page.getByLabel("Email").fill(email)
    await page.getByRole("button", { name: "Continue" }).click()
  })

const signedInAs = (page: Page, name: string) =>
  Effect.promise(async () => {
    await page.getByRole("heading", { name: "Runs" }).waitFor()
    await page.locator(".who").getByText(name).waitFor()
  })

layer(Live, { excludeTestServices: true, timeout: "120 seconds" })("the console in a browser: signing in", (it) => {
  it.scoped.skipIf(!browserAvailable)(
    "a code by mail; then, once the workspace requires it, an authenticator app: entered, and set up at sign-in",
    () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const { baseUrl } = yield* TestPlatform
        const browser = yield* workerBrowser
        const email = uniqueEmail("otp")
        assert.strictEqual((yield* http("POST", "/api/v1/auth/users", { token: admin, body: { email, name: "Otto Mail", role: "user" } })).status, 201)
        const mail = yield* watchedPage(browser)
        yield* begin(mail.page, baseUrl, email)
        yield* Effect.promise(() => mail.page.getByLabel("The code we emailed you").waitFor())
        const code = yield* codeFor(email)
        yield* Effect.promise(async () => {
          await mail.page.getByLabel("The code we emailed you").fill(code)
          await mail.page.getByRole("button", { name: "Sign in" }).click()
        })
        yield* signedInAs(mail.page, "Otto Mail")

        // An enrolled builder and a member who never set up an app, in a workspace that requires one.
        const enrolled = yield* createMember(admin, "builder")
        const fresh = yield* createMember(admin, "user")
        const token = yield* loginToken(enrolled.email, enrolled.password)
        const secret = (yield* http("POST", "/api/v1/auth/users/me/totp/enroll", { token })).body.secret as string
        yield* http("POST", "/api/v1/auth/users/me/totp/activate", { token, body: { code: currentTotp(secret) } })
        const tenantId = (yield* http("GET", "/api/v1/auth/users/me", { token: admin })).body.user.tenant_id as string
        yield* http("PATCH", `/api/v1/auth/tenants/${tenantId}/settings`, { token: admin, body: { require_totp: true } })

        const app = yield* watchedPage(browser, [/^401 .*\/auth\/totp\/verify$/])
        yield* begin(app.page, baseUrl, enrolled.email)
        yield* Effect.promise(async () => {
          await app.page.getByLabel("Password").fill(enrolled.password)
          await app.page.getByRole("button", { name: "Sign in" }).click()
          await app.page.getByLabel("The code from your authenticator app").fill("000000")
          await app.page.getByRole("button", { name: "Sign in" }).click()
          await app.page.getByRole("alert").waitFor()
          // The code of the next 30 s step: the one used to activate is spent.
          await app.page.getByLabel("The code from your authenticator app").fill(currentTotp(secret, Date.now() + 30_000))
          await app.page.getByRole("button", { name: "Sign in" }).click()
        })
        yield* signedInAs(app.page, "builder person")

        const setUp = yield* watchedPage(browser)
        yield* begin(setUp.page, baseUrl, fresh.email)
        yield* Effect.promise(async () => {
          await setUp.page.getByLabel("Password").fill(fresh.password)
          await setUp.page.getByRole("button", { name: "Sign in" }).click()
          await setUp.page.getByRole("button", { name: "Set up an authenticator app" }).click()
        })
        const key = yield* Effect.promise(() => setUp.page.getByLabel("Authenticator key").textContent())
        yield* Effect.promise(async () => {
          await setUp.page.getByLabel("The code from your authenticator app").fill(currentTotp(key ?? ""))
          await setUp.page.getByRole("button", { name: "Sign in" }).click()
        })
        yield* signedInAs(setUp.page, "user person")
        yield* http("PATCH", `/api/v1/auth/tenants/${tenantId}/settings`, { token: admin, body: { require_totp: false } })
        assert.deepStrictEqual([...mail.problems(), ...app.problems(), ...setUp.problems()], [])
      })
  )

  it.scoped.skipIf(!browserAvailable)(
    "single sign-on: the identity provider's pages and back into the console; a refused account is told why",
    () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const { baseUrl } = yield* TestPlatform
        const { issuer } = yield* OidcProvider
        const tenantId = (yield* http("GET", "/api/v1/auth/users/me", { token: admin })).body.user.tenant_id as string
        const browser = yield* workerBrowser
        // The workspace's admin sets single sign-on up in the console (no configuration yet: its read is 404).
        const setUp = yield* watchedPage(browser, [/^404 .*\/api\/v1\/auth\/tenants\/[0-9a-f-]+\/sso$/])
        yield* signIn(setUp.page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD, "/admin?tab=workspace")
        const ssoForm = setUp.page.getByRole("form", { name: "Single sign-on" })
        yield* Effect.promise(async () => {
          await ssoForm.getByLabel("Issuer").fill(issuer)
          await ssoForm.getByLabel("Client id").fill(CLIENT_ID)
          await ssoForm.getByLabel("Client secret").fill(CLIENT_SECRET)
          await ssoForm.getByLabel("Email domains").fill("sso.test")
          await ssoForm.getByLabel("Role of people added").selectOption("builder")
          await ssoForm.getByLabel("Add people who sign in for the first time").check()
          await ssoForm.getByRole("button", { name: "Save single sign-on" }).click()
          await ssoForm.getByText("Single sign-on saved").waitFor()
          await ssoForm.getByText(`${baseUrl}/api/v1/auth/auth/sso/callback`).waitFor()
        })
        const saved = yield* http("GET", `/api/v1/auth/tenants/${tenantId}/sso`, { token: admin })
        assert.deepInclude(saved.body, {
          issuer,
          client_id: CLIENT_ID,
          has_client_secret: true,
          email_domains: ["sso.test"],
          auto_provision: true,
          default_role: "builder",
          enabled: true
        })
        const providerLogin = (page: Page, login: string) => providerLoginInBrowser(page, issuer, login)
        const alice = yield* watchedPage(browser, [], { foreignOrigins: [issuer] })
        yield* begin(alice.page, baseUrl, "alice@sso.test")
        yield* providerLogin(alice.page, "alice@sso.test")
        yield* signedInAs(alice.page, "Name of alice@sso.test")
        assert.strictEqual(new URL(alice.page.url()).origin, baseUrl)

        // No longer adding people: the secret is kept when its field is left empty.
        yield* Effect.promise(async () => {
          await ssoForm.getByLabel("Add people who sign in for the first time").uncheck()
          await ssoForm.getByText("Single sign-on saved").waitFor({ state: "detached" })
          await ssoForm.getByLabel("Client secret").and(setUp.page.getByPlaceholder("kept (type to replace)")).waitFor()
          await ssoForm.getByRole("button", { name: "Save single sign-on" }).click()
          await ssoForm.getByText("Single sign-on saved").waitFor()
        })
        assert.deepInclude((yield* http("GET", `/api/v1/auth/tenants/${tenantId}/sso`, { token: admin })).body, {
          auto_provision: false,
          has_client_secret: true
        })
        const bob = yield* watchedPage(browser, [], { foreignOrigins: [issuer] })
        yield* begin(bob.page, baseUrl, "bob@sso.test")
        yield* providerLogin(bob.page, "bob@sso.test")
        yield* Effect.promise(() => bob.page.getByText(/Single sign-on did not complete/).waitFor())
        assert.match(bob.page.url(), /\/sign-in\?sso_error=/)
        assert.deepStrictEqual([...setUp.problems(), ...alice.problems(), ...bob.problems()], [])
      })
  )
})

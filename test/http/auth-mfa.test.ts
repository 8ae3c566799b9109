import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { currentTotp } from "../../services/auth/Totp.js"
import { cookieValue, setCookies } from "../support/Cookies.js"
import { adminToken, createMember, uniqueEmail } from "../support/Fixtures.js"
import { http, login, loginToken } from "../support/Http.js"
import { mailedCode, SmtpInbox } from "../support/SmtpInbox.js"
import { TestPlatformLive } from "../support/TestPlatform.js"

const Live = Layer.unwrapEffect(
  Effect.map(SmtpInbox, (inbox) => TestPlatformLive({ env: { SMTP_URL: `smtp://127.0.0.1:${inbox.port}` } }))
).pipe(Layer.provideMerge(SmtpInbox.layer))

const codeFor = mailedCode

/** A TOTP code from a later 30 s step than any used so far (each step is accepted once). */
const freshTotp = (secret: string, stepsAhead: number) => currentTotp(secret, Date.now() + stepsAhead * 30_000)

layer(Live, { excludeTestServices: true })("auth: OTP by mail and TOTP", (it) => {
  it.effect("OTP: the code goes out over SMTP and signs the user in once", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const email = uniqueEmail("otp")
      yield* http("POST", "/api/v1/auth/users", { token: admin, body: { email, name: "Otp User", role: "user" } })
      const sent = yield* http("POST", "/api/v1/auth/auth/otp/request", { body: { email } })
      assert.strictEqual(sent.status, 202)
      assert.deepStrictEqual(sent.body, { status: "sent" })
      const code = yield* codeFor(email)
      const wrong = yield* http("POST", "/api/v1/auth/auth/otp/verify", {
        body: { email, code: code === "000000" ? "111111" : "000000" }
      })
      assert.strictEqual(wrong.status, 401)
      const ok = yield* http("POST", "/api/v1/auth/auth/otp/verify", { body: { email, code } })
      assert.strictEqual(ok.status, 200)
      assert.isString(ok.body.access_token)
      // A browser gets the session as cookies too.
      assert.hasAllKeys(setCookies(ok.headers), ["access_token", "refresh_token", "csrf_token"])
      assert.strictEqual(ok.body.user.email, email)
      const replay = yield* http("POST", "/api/v1/auth/auth/otp/verify", { body: { email, code } })
      assert.strictEqual(replay.status, 401)
      // Unknown addresses get the same answer and no mail.
      const unknown = yield* http("POST", "/api/v1/auth/auth/otp/request", { body: { email: "nobody@example.test" } })
      assert.strictEqual(unknown.status, 202)
    }))

  it.effect("TOTP: enroll and activate for a signed-in user", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const m = yield* createMember(admin, "builder")
      const token = yield* loginToken(m.email, m.password)
      const enrolled = yield* http("POST", "/api/v1/auth/users/me/totp/enroll", { token })
      assert.strictEqual(enrolled.status, 200)
      assert.match(enrolled.body.otpauth_uri, /^otpauth:\/\/totp\//)
      const bad = yield* http("POST", "/api/v1/auth/users/me/totp/activate", { token, body: { code: "12345" } })
      assert.strictEqual(bad.status, 400)
      const ok = yield* http("POST", "/api/v1/auth/users/me/totp/activate", {
        token,
        body: { code: currentTotp(enrolled.body.secret) }
      })
      assert.strictEqual(ok.status, 200)
      assert.deepStrictEqual(ok.body, { totp_enabled: true })
      const me = yield* http("GET", "/api/v1/auth/users/me", { token })
      assert.isTrue(me.body.totp_enabled)
      const again = yield* http("POST", "/api/v1/auth/users/me/totp/enroll", { token })
      assert.strictEqual(again.status, 409)
    }))

  it.effect("require_totp: password and OTP sign-in return a partial_auth_token completed at totp/verify", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const m = yield* createMember(admin, "builder")
      // Enroll before the tenant starts requiring it.
      const token = yield* loginToken(m.email, m.password)
      const enrolled = yield* http("POST", "/api/v1/auth/users/me/totp/enroll", { token })
      const secret = enrolled.body.secret as string
      yield* http("POST", "/api/v1/auth/users/me/totp/activate", { token, body: { code: currentTotp(secret) } })
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: admin })
      const tenantId = me.body.user.tenant_id
      yield* http("PATCH", `/api/v1/auth/tenants/${tenantId}/settings`, { token: admin, body: { require_totp: true } })

      const first = yield* login(m.email, m.password)
      assert.strictEqual(first.status, 200)
      assert.isUndefined(first.body.access_token)
      assert.strictEqual(first.body.mfa_required, "totp")
      assert.isTrue(first.body.totp_enrolled)
      assert.deepStrictEqual(setCookies(first.headers), {}, "no session cookie before the second factor")
      const partial = first.body.partial_auth_token as string
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users/me", { token: partial })).status, 401)
      const wrong = yield* http("POST", "/api/v1/auth/auth/totp/verify", { body: { partial_auth_token: partial, code: "000000" } })
      assert.strictEqual(wrong.status, 401)
      const code = freshTotp(secret, 1)
      const done = yield* http("POST", "/api/v1/auth/auth/totp/verify", { body: { partial_auth_token: partial, code } })
      assert.strictEqual(done.status, 200)
      assert.isString(done.body.access_token)
      assert.strictEqual(cookieValue(setCookies(done.headers).access_token), done.body.access_token)
      const replay = yield* http("POST", "/api/v1/auth/auth/totp/verify", { body: { partial_auth_token: partial, code } })
      assert.strictEqual(replay.status, 401)

      // OTP sign-in also stops at the second factor.
      yield* http("POST", "/api/v1/auth/auth/otp/request", { body: { email: m.email } })
      const otp = yield* http("POST", "/api/v1/auth/auth/otp/verify", { body: { email: m.email, code: yield* codeFor(m.email) } })
      assert.strictEqual(otp.status, 200)
      assert.isString(otp.body.partial_auth_token)

      // A member not yet enrolled enrolls with the partial token, then verifies.
      const fresh = yield* createMember(admin, "user")
      const p2 = yield* login(fresh.email, fresh.password)
      assert.isFalse(p2.body.totp_enrolled)
      const e2 = yield* http("POST", "/api/v1/auth/auth/totp/enroll", { body: { partial_auth_token: p2.body.partial_auth_token } })
      assert.strictEqual(e2.status, 200)
      const v2 = yield* http("POST", "/api/v1/auth/auth/totp/verify", {
        body: { partial_auth_token: p2.body.partial_auth_token, code: currentTotp(e2.body.secret) }
      })
      assert.strictEqual(v2.status, 200)
      assert.isString(v2.body.access_token)
      yield* http("PATCH", `/api/v1/auth/tenants/${tenantId}/settings`, { token: admin, body: { require_totp: false } })
    }))
})

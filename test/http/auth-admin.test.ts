import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { TestPlatform, TestPlatformLive } from "../support/TestPlatform.js"

layer(TestPlatformLive({ redis: false }), { excludeTestServices: true })("auth: tenants, users, groups, audit", (it) => {
  it.effect("tenants: env_admin creates and lists; slug conflicts are 409; others get 403", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const created = yield* http("POST", "/api/v1/auth/tenants", { token: admin, body: { name: "Globex", slug: "globex" } })
      assert.strictEqual(created.status, 201)
      assert.deepStrictEqual(created.body.settings, {
        require_totp: false,
        chat_impersonation: false,
        ticketing_enabled: false,
        user_groups_enabled: false
      })
      const dup = yield* http("POST", "/api/v1/auth/tenants", { token: admin, body: { name: "G2", slug: "globex" } })
      assert.strictEqual(dup.status, 409)
      const bad = yield* http("POST", "/api/v1/auth/tenants", { token: admin, body: { name: "G3", slug: "Not A Slug" } })
      assert.strictEqual(bad.status, 400)
      const list = yield* http("GET", "/api/v1/auth/tenants", { token: admin })
      assert.isAtLeast(list.body.total, 2)
      const sys = yield* createMember(admin, "system_admin")
      const sysToken = yield* loginToken(sys.email, sys.password)
      assert.strictEqual((yield* http("GET", "/api/v1/auth/tenants", { token: sysToken })).status, 403)
      assert.strictEqual(
        (yield* http("POST", "/api/v1/auth/tenants", { token: sysToken, body: { name: "x", slug: "x" } })).status,
        403
      )
    }))

  it.effect("tenant settings: system_admin of the tenant may patch its flags; others 403; foreign tenant 404", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const other = yield* createTenant(admin, "settings-co")
      const sys = yield* createMember(admin, "system_admin")
      const sysToken = yield* loginToken(sys.email, sys.password)
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: sysToken })
      const ok = yield* http("PATCH", `/api/v1/auth/tenants/${me.body.user.tenant_id}/settings`, {
        token: sysToken,
        body: { chat_impersonation: true }
      })
      assert.strictEqual(ok.status, 200)
      assert.isTrue(ok.body.settings.chat_impersonation)
      assert.isFalse(ok.body.settings.require_totp)
      const foreign = yield* http("PATCH", `/api/v1/auth/tenants/${other.id}/settings`, {
        token: sysToken,
        body: { chat_impersonation: true }
      })
      assert.strictEqual(foreign.status, 404)
      const builder = yield* createMember(admin, "builder")
      const bToken = yield* loginToken(builder.email, builder.password)
      const refused = yield* http("PATCH", `/api/v1/auth/tenants/${me.body.user.tenant_id}/settings`, {
        token: bToken,
        body: { chat_impersonation: false }
      })
      assert.strictEqual(refused.status, 403)
    }))

  it.effect("users: admins create, list (paginated), patch and remove; nobody grants above their role", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const ua = yield* createMember(admin, "user_admin")
      const uaToken = yield* loginToken(ua.email, ua.password)
      const above = yield* http("POST", "/api/v1/auth/users", {
        token: uaToken,
        body: { email: "boss@example.test", name: "Boss", role: "system_admin" }
      })
      assert.strictEqual(above.status, 403)
      const ok = yield* http("POST", "/api/v1/auth/users", {
        token: uaToken,
        body: { email: "helper@example.test", name: "Helper", role: "builder", password: "helper-pass-1" }
      })
      assert.strictEqual(ok.status, 201)
      const again = yield* http("POST", "/api/v1/auth/users", {
        token: uaToken,
        body: { email: "HELPER@example.test", name: "Helper", role: "builder" }
      })
      assert.strictEqual(again.status, 409)
      const page = yield* http("GET", "/api/v1/auth/users?page=1&page_size=2", { token: uaToken })
      assert.strictEqual(page.status, 200)
      assert.strictEqual(page.body.items.length, 2)
      assert.strictEqual(page.body.page_size, 2)
      assert.isTrue(page.body.has_more)
      assert.isAtLeast(page.body.total, 3)
      const promote = yield* http("PATCH", `/api/v1/auth/users/${ok.body.id}`, { token: uaToken, body: { role: "env_admin" } })
      assert.strictEqual(promote.status, 403)
      const disable = yield* http("PATCH", `/api/v1/auth/users/${ok.body.id}`, {
        token: uaToken,
        body: { status: "disabled", role: "user" }
      })
      assert.strictEqual(disable.status, 200)
      assert.strictEqual(disable.body.status, "disabled")
      assert.strictEqual(disable.body.role, "user")
      const login = yield* http("POST", "/api/v1/auth/login", { body: { email: "helper@example.test", password: "helper-pass-1" } })
      assert.strictEqual(login.status, 401)
      const builder = yield* createMember(admin, "builder")
      const bToken = yield* loginToken(builder.email, builder.password)
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users", { token: bToken })).status, 403)
      assert.strictEqual((yield* http("DELETE", `/api/v1/auth/users/${ok.body.id}`, { token: bToken })).status, 403)
      assert.strictEqual((yield* http("DELETE", `/api/v1/auth/users/${ok.body.id}`, { token: uaToken })).status, 204)
      assert.strictEqual((yield* http("DELETE", `/api/v1/auth/users/${ok.body.id}`, { token: uaToken })).status, 404)
    }))

  it.effect("page_size is capped at 100", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const r = yield* http("GET", "/api/v1/auth/users?page_size=1000", { token: admin })
      assert.strictEqual(r.status, 200)
      assert.strictEqual(r.body.page_size, 100)
      const bad = yield* http("GET", "/api/v1/auth/users?page=0", { token: admin })
      assert.strictEqual(bad.status, 400)
    }))

  it.effect("no_access members read only their own profile and tenants", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const n = yield* createMember(admin, "no_access")
      const token = yield* loginToken(n.email, n.password)
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users/me", { token })).status, 200)
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users/me/tenants", { token })).status, 200)
      assert.strictEqual((yield* http("GET", "/api/v1/auth/api-keys", { token })).status, 403)
      assert.strictEqual((yield* http("POST", "/api/v1/auth/api-keys", { token, body: { name: "x" } })).status, 403)
    }))

  it.effect("groups: 404 while the flag is off; nesting, cycles refused, members and group admins", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: admin })
      const tenantId = me.body.user.tenant_id
      const off = yield* http("GET", "/api/v1/auth/groups", { token: admin })
      assert.strictEqual(off.status, 404)
      yield* http("PATCH", `/api/v1/auth/tenants/${tenantId}/settings`, { token: admin, body: { user_groups_enabled: true } })
      const parent = yield* http("POST", "/api/v1/auth/groups", { token: admin, body: { name: "Support" } })
      assert.strictEqual(parent.status, 201)
      const child = yield* http("POST", "/api/v1/auth/groups", {
        token: admin,
        body: { name: "Tier 2", parent_group_id: parent.body.id }
      })
      assert.strictEqual(child.status, 201)
      assert.strictEqual(child.body.parent_group_id, parent.body.id)
      const grandchild = yield* http("POST", "/api/v1/auth/groups", {
        token: admin,
        body: { name: "Tier 3", parent_group_id: child.body.id }
      })
      const cycle = yield* http("PATCH", `/api/v1/auth/groups/${parent.body.id}`, {
        token: admin,
        body: { parent_group_id: grandchild.body.id }
      })
      assert.strictEqual(cycle.status, 422)
      assert.strictEqual(cycle.body.code, "GROUP_CYCLE")
      const self = yield* http("PATCH", `/api/v1/auth/groups/${parent.body.id}`, {
        token: admin,
        body: { parent_group_id: parent.body.id }
      })
      assert.strictEqual(self.status, 422)
      const dup = yield* http("POST", "/api/v1/auth/groups", { token: admin, body: { name: "Support" } })
      assert.strictEqual(dup.status, 409)

      const lead = yield* createMember(admin, "user")
      const agent = yield* createMember(admin, "user")
      const addLead = yield* http("POST", `/api/v1/auth/groups/${child.body.id}/members`, {
        token: admin,
        body: { user_id: lead.id, is_group_admin: true }
      })
      assert.strictEqual(addLead.status, 201)
      assert.isTrue(addLead.body.is_group_admin)
      // A group admin manages the members of their group, nothing else.
      const leadToken = yield* loginToken(lead.email, lead.password)
      const addAgent = yield* http("POST", `/api/v1/auth/groups/${child.body.id}/members`, {
        token: leadToken,
        body: { user_id: agent.id }
      })
      assert.strictEqual(addAgent.status, 201)
      const elsewhere = yield* http("POST", `/api/v1/auth/groups/${parent.body.id}/members`, {
        token: leadToken,
        body: { user_id: agent.id }
      })
      assert.strictEqual(elsewhere.status, 403)
      const rename = yield* http("PATCH", `/api/v1/auth/groups/${child.body.id}`, { token: leadToken, body: { name: "x" } })
      assert.strictEqual(rename.status, 403)
      const members = yield* http("GET", `/api/v1/auth/groups/${child.body.id}/members`, { token: admin })
      assert.strictEqual(members.body.total, 2)
      const removed = yield* http("DELETE", `/api/v1/auth/groups/${child.body.id}/members/${agent.id}`, {
        token: leadToken
      })
      assert.strictEqual(removed.status, 204)
      const group = yield* http("GET", `/api/v1/auth/groups/${child.body.id}`, { token: admin })
      assert.strictEqual(group.body.member_count, 1)
      assert.strictEqual((yield* http("DELETE", `/api/v1/auth/groups/${grandchild.body.id}`, { token: admin })).status, 204)
      assert.strictEqual((yield* http("GET", `/api/v1/auth/groups/${grandchild.body.id}`, { token: admin })).status, 404)
    }))

  it.effect("audit events: admins read the trail newest first", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const requestId = `audit-${Date.now()}`
      const created = yield* http("POST", "/api/v1/auth/users", {
        token: admin,
        headers: { "x-request-id": requestId },
        body: { email: `audited-${Date.now()}@example.test`, name: "Audited", password: "password-123", role: "builder" }
      })
      assert.strictEqual(created.headers.get("x-request-id"), requestId)
      const events = yield* http("GET", "/api/v1/auth/audit-events?page_size=50", { token: admin })
      assert.strictEqual(events.status, 200)
      const actions = events.body.items.map((e: { action: string }) => e.action)
      assert.include(actions, "user.created")
      assert.include(actions, "auth.login")
      const times = events.body.items.map((e: { created_at: string }) => Date.parse(e.created_at))
      assert.deepStrictEqual(times, [...times].sort((a, b) => b - a))
      assert.isString(events.body.items[0].request_id)
      // The request's id is on the audit event it caused.
      assert.strictEqual(
        events.body.items.find((e: { action: string; resource_id: string }) => e.action === "user.created" && e.resource_id === created.body.id)
          ?.request_id,
        requestId
      )
      const builder = yield* createMember(admin, "builder")
      const bToken = yield* loginToken(builder.email, builder.password)
      assert.strictEqual((yield* http("GET", "/api/v1/auth/audit-events", { token: bToken })).status, 403)
    }))
})

layer(TestPlatformLive({ redis: false }), { excludeTestServices: true })("auth: OTP without SMTP", (it) => {
  it.effect("the code is kept in the mail outbox, and it works", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const email = "outbox.user@example.test"
      yield* http("POST", "/api/v1/auth/users", { token: admin, body: { email, name: "Outbox", role: "user" } })
      const sent = yield* http("POST", "/api/v1/auth/auth/otp/request", { body: { email } })
      assert.strictEqual(sent.status, 202)
      const platform = yield* TestPlatform
      const rows = yield* Effect.promise(async () => {
        const client = new pg.Client({ connectionString: platform.databaseUrl })
        await client.connect()
        const result = await client.query("SELECT to_address, body_text, status FROM mail_outbox WHERE to_address = $1", [email])
        await client.end()
        return result.rows as Array<{ to_address: string; body_text: string; status: string }>
      })
      assert.strictEqual(rows.length, 1)
      assert.strictEqual(rows[0].status, "outbox")
      const code = /code is (\d{6})/.exec(rows[0].body_text)?.[1]
      assert.isString(code)
      const ok = yield* http("POST", "/api/v1/auth/auth/otp/verify", { body: { email, code } })
      assert.strictEqual(ok.status, 200)
      assert.isString(ok.body.access_token)
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect, FastCheck, Layer } from "effect"
import type { Role } from "../../schemas/Roles.js"
import { Roles } from "../../schemas/Roles.js"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { TestPlatform, TestPlatformLive } from "../support/TestPlatform.js"

interface TenantWorld {
  readonly tenantId: string
  readonly groupId: string
  readonly keyId: string
  readonly victimUserId: string
  readonly workflowId: string
  readonly treeId: string
  /** A JWT and (except for no_access) an API key per role. */
  readonly credentials: Record<Role, { readonly token: string; readonly apiKey?: string }>
}

const buildTenant = (admin: string, tenantId: string) =>
  Effect.gen(function*() {
    yield* http("PATCH", `/api/v1/auth/tenants/${tenantId}/settings`, { token: admin, body: { user_groups_enabled: true } })
    const credentials = {} as Record<Role, { token: string; apiKey?: string }>
    for (const role of Roles) {
      const m = yield* createMember(admin, role, { tenantId })
      const token = yield* loginToken(m.email, m.password)
      const me = yield* http("GET", "/api/v1/auth/users/me", { token })
      assert.strictEqual(me.body.user.tenant_id, tenantId)
      if (role === "no_access") {
        credentials[role] = { token }
        continue
      }
      const key = yield* http("POST", "/api/v1/auth/api-keys", { token, body: { name: `${role} key` } })
      credentials[role] = { token, apiKey: key.body.key }
    }
    const sys = credentials.system_admin.token
    const group = yield* http("POST", "/api/v1/auth/groups", { token: sys, body: { name: "Victims" } })
    const victim = yield* createMember(admin, "user", { tenantId })
    const key = yield* http("POST", "/api/v1/auth/api-keys", { token: credentials.builder.token, body: { name: "victim key" } })
    const workflow = yield* http("POST", "/api/v1/workflow/workflows", { token: sys, body: { name: "Victim AIE" } })
    const tree = yield* http("POST", "/api/v1/workflow/voice/trees", { token: sys, body: { name: "Victim tree", content: {} } })
    return {
      tenantId,
      groupId: group.body.id,
      keyId: key.body.id,
      victimUserId: victim.id,
      workflowId: workflow.body.id,
      treeId: tree.body.id,
      credentials
    } satisfies TenantWorld
  })

class World extends Effect.Service<World>()("World", {
  effect: Effect.gen(function*() {
    const admin = yield* adminToken
    const me = yield* http("GET", "/api/v1/auth/users/me", { token: admin })
    const b = yield* createTenant(admin, "tenant-b")
    return { a: yield* buildTenant(admin, me.body.user.tenant_id), b: yield* buildTenant(admin, b.id) }
  })
}) {}

type Operation = (attacker: TenantWorld, victim: TenantWorld) => { method: string; path: string; body?: unknown }

/** Every operation names a resource of the victim tenant, from inside the attacker's tenant. */
const operations: Record<string, Operation> = {
  readGroup: (_, v) => ({ method: "GET", path: `/api/v1/auth/groups/${v.groupId}` }),
  renameGroup: (_, v) => ({ method: "PATCH", path: `/api/v1/auth/groups/${v.groupId}`, body: { name: "pwned" } }),
  deleteGroup: (_, v) => ({ method: "DELETE", path: `/api/v1/auth/groups/${v.groupId}` }),
  listGroupMembers: (_, v) => ({ method: "GET", path: `/api/v1/auth/groups/${v.groupId}/members` }),
  joinGroup: (a, v) => ({ method: "POST", path: `/api/v1/auth/groups/${v.groupId}/members`, body: { user_id: a.victimUserId } }),
  kickFromGroup: (_, v) => ({ method: "DELETE", path: `/api/v1/auth/groups/${v.groupId}/members/${v.victimUserId}` }),
  addForeignUserToOwnGroup: (a, v) => ({
    method: "POST",
    path: `/api/v1/auth/groups/${a.groupId}/members`,
    body: { user_id: v.victimUserId }
  }),
  nestUnderForeignGroup: (_, v) => ({ method: "POST", path: "/api/v1/auth/groups", body: { name: "x", parent_group_id: v.groupId } }),
  changeUser: (_, v) => ({ method: "PATCH", path: `/api/v1/auth/users/${v.victimUserId}`, body: { role: "user" } }),
  removeUser: (_, v) => ({ method: "DELETE", path: `/api/v1/auth/users/${v.victimUserId}` }),
  changeKey: (_, v) => ({ method: "PATCH", path: `/api/v1/auth/api-keys/${v.keyId}`, body: { name: "pwned" } }),
  revokeKey: (_, v) => ({ method: "DELETE", path: `/api/v1/auth/api-keys/${v.keyId}` }),
  readWorkflow: (_, v) => ({ method: "GET", path: `/api/v1/workflow/workflows/${v.workflowId}` }),
  editWorkflow: (_, v) => ({ method: "PATCH", path: `/api/v1/ai-employees/${v.workflowId}`, body: { name: "pwned" } }),
  archiveWorkflow: (_, v) => ({ method: "DELETE", path: `/api/v1/workflow/workflows/${v.workflowId}` }),
  publishWorkflow: (_, v) => ({ method: "POST", path: `/api/v1/workflow/workflows/${v.workflowId}/publish` }),
  readConfig: (_, v) => ({ method: "GET", path: `/api/v1/workflow/workflows/${v.workflowId}/config` }),
  cloneWorkflow: (_, v) => ({ method: "POST", path: `/api/v1/ai-employees/${v.workflowId}/clone`, body: {} }),
  listVersions: (_, v) => ({ method: "GET", path: `/api/v1/ai-employees/${v.workflowId}/versions` }),
  revertVersion: (_, v) => ({ method: "POST", path: `/api/v1/ai-employees/${v.workflowId}/versions/1/revert` }),
  renameVersion: (_, v) => ({ method: "PATCH", path: `/api/v1/ai-employees/${v.workflowId}/versions/1`, body: { name: "x" } }),
  readTree: (_, v) => ({ method: "GET", path: `/api/v1/workflow/voice/trees/${v.treeId}` }),
  addTreeVersion: (_, v) => ({ method: "POST", path: `/api/v1/workflow/voice/trees/${v.treeId}/versions`, body: { content: {} } })
}

/** Tenant-level operations that only an env_admin may perform across tenants. */
const tenantOperations: Record<string, Operation> = {
  patchSettings: (_, v) => ({ method: "PATCH", path: `/api/v1/auth/tenants/${v.tenantId}/settings`, body: { require_totp: true } }),
  readSso: (_, v) => ({ method: "GET", path: `/api/v1/auth/tenants/${v.tenantId}/sso` }),
  deleteSso: (_, v) => ({ method: "DELETE", path: `/api/v1/auth/tenants/${v.tenantId}/sso` }),
  switchInto: (_, v) => ({ method: "POST", path: "/api/v1/auth/switch-tenant", body: { target_tenant_id: v.tenantId } })
}

const Live = World.Default.pipe(Layer.provideMerge(TestPlatformLive({ redis: false })))

layer(Live, { excludeTestServices: true, timeout: "120 seconds" })("cross-tenant isolation", (it) => {
  it.effect.prop(
    "every cross-tenant read or write is 404, whatever the role and credential",
    {
      role: FastCheck.constantFrom(...Roles),
      operation: FastCheck.constantFrom(...Object.keys(operations), ...Object.keys(tenantOperations)),
      fromA: FastCheck.boolean(),
      useKey: FastCheck.boolean()
    },
    ({ fromA, operation, role, useKey }) =>
      Effect.gen(function*() {
        const world = yield* World
        const [attacker, victim] = fromA ? [world.a, world.b] : [world.b, world.a]
        const op = operations[operation] ?? tenantOperations[operation]
        // An env_admin administers every tenant by design; the tenant-level routes are exempt for it.
        if (role === "env_admin" && operation in tenantOperations) return
        const credential = attacker.credentials[role]
        const request = op(attacker, victim)
        const r = yield* http(request.method, request.path, {
          ...(useKey && credential.apiKey !== undefined ? { apiKey: credential.apiKey } : { token: credential.token }),
          body: request.body
        })
        if (operation === "switchInto" && useKey && credential.apiKey !== undefined) {
          assert.strictEqual(r.status, 403, `${role} ${operation} via key`)
          return
        }
        assert.strictEqual(r.status, 404, `${role} ${operation} ${request.method} ${request.path}: ${r.text}`)
      }),
    { fastCheck: { numRuns: 250 } }
  )

  it.effect("after every attempt the victims are untouched", () =>
    Effect.gen(function*() {
      const world = yield* World
      for (const t of [world.a, world.b]) {
        const sys = t.credentials.system_admin.token
        const group = yield* http("GET", `/api/v1/auth/groups/${t.groupId}`, { token: sys })
        assert.strictEqual(group.body.name, "Victims")
        assert.strictEqual(group.body.member_count, 0)
        const keys = yield* http("GET", "/api/v1/auth/api-keys?page_size=100", { token: sys })
        const key = keys.body.items.find((k: { id: string }) => k.id === t.keyId)
        assert.strictEqual(key.name, "victim key")
        assert.isFalse(key.revoked)
        const users = yield* http("GET", "/api/v1/auth/users?page_size=100", { token: sys })
        assert.isDefined(users.body.items.find((u: { id: string; role: string }) => u.id === t.victimUserId && u.role === "user"))
        const platform = yield* TestPlatform
        assert.isString(platform.baseUrl)
        const wf = yield* http("GET", `/api/v1/workflow/workflows/${t.workflowId}`, { token: sys })
        assert.strictEqual(wf.body.name, "Victim AIE")
        assert.strictEqual(wf.body.latest_version, 1)
        assert.isFalse(wf.body.archived)
        const tree = yield* http("GET", `/api/v1/workflow/voice/trees/${t.treeId}/versions`, { token: sys })
        assert.strictEqual(tree.body.items.length, 1)
      }
    }))
})

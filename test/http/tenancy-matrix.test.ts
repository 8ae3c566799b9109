import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type Role, Roles } from "../../schemas/Roles.js"
import { chatWorkflow, newSession, send, answerOf } from "../support/Chat.js"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { simpleDag } from "../support/Workflows.js"

/**
 * The tenant matrix, generated from the OpenAPI document so that a new route is covered without
 * a line here (OWASP API1, broken object level authorization): tenant A is filled with one of
 * most resources, and the real ids of A's resources are found by walking the document's routes as
 * A's System Admin (a route's `{param}` takes the ids its parent listing answers). Then every
 * route that names a resource is called with A's ids by every role of tenant B, by JWT and by API
 * key: none may succeed (404, or a 403 that a role check answers before the lookup). A's
 * resources are all still there afterwards, and no answer anywhere carries a secret field.
 */
const SECRET_FIELDS = /^(password|password_hash|key_hash|secret_hash|sealed|sealed_credentials|totp_secret|refresh_token_hash|api_token|client_secret)$/
/**
 * Routes meant to answer other tenants: the public app and the signed webhook delivery check their
 * own credential, and templates are the platform's, shared by every workspace.
 */
const PUBLIC = [/^\/api\/v1\/workflow\/public\//, /^\/api\/v1\/workflow\/webhooks\/\{webhook_id\}$/, /^\/api\/v1\/workflow\/templates\//]
const FIXED: Record<string, string> = { version: "1", versionNumber: "1", slide: "1", name: "x", type: "pdf" }

interface Op {
  readonly method: string
  readonly path: string
}

const json = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The ids an answer lists: `id` at the top, and of the records in its arrays. */
const idsIn = (body: unknown): Array<string> => {
  if (typeof body !== "object" || body === null) return []
  const records = [body, ...Object.values(body).flatMap((v) => (Array.isArray(v) ? v : []))]
  return records.flatMap((r) => {
    const id = typeof r === "object" && r !== null ? (r as Record<string, unknown>).id ?? (r as Record<string, unknown>).group_id : undefined
    return typeof id === "string" || typeof id === "number" ? [String(id)] : []
  })
}

/** The secret fields in an answer, with their paths. */
const secretsIn = (value: unknown, at = ""): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((v, i) => secretsIn(v, `${at}[${i}]`))
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([k, v]) => [...(SECRET_FIELDS.test(k) && v !== null ? [`${at}.${k}`] : []), ...secretsIn(v, `${at}.${k}`)])
}

/** Tenant A's resources: a published AI Employee with a run, a chat, groups, keys, knowledge, integrations, documents, tickets. */
const seed = (token: string, tenantId: string) =>
  Effect.gen(function*() {
    const model = yield* ScriptedModel
    model.setScript(() => ({ text: "Hello there." }))
    yield* http("PATCH", `/api/v1/auth/tenants/${tenantId}/settings`, { token, body: { user_groups_enabled: true, ticketing_enabled: true } })
    const workflow = yield* publishedWorkflow(token, simpleDag())
    const run = yield* startRun(token, workflow, {})
    yield* waitForStatus(token, run.body.id, ["completed", "failed"])
    const chat = yield* chatWorkflow(token)
    const session = yield* newSession(token, chat)
    const sent = yield* send(token, session.id, { content: "Hi" })
    yield* answerOf(token, session.id, sent.body.assistant_message_id)
    const group = (yield* http("POST", "/api/v1/auth/groups", { token, body: { name: "A team" } })).body.id as string
    const member = yield* createMember(token, "user", { tenantId })
    yield* http("POST", `/api/v1/auth/groups/${group}/members`, { token, body: { user_id: member.id } })
    yield* http("POST", `/api/v1/hcm-ticketing/groups/${group}/queue`, { token, body: { name: "A desk" } })
    yield* http("POST", `/api/v1/hcm-ticketing/groups/${group}/tickets`, { token, body: { title: "A ticket" } })
    const requests: Array<[string, string, unknown]> = [
      ["POST", "/api/v1/auth/api-keys", { name: "A key" }],
      ["POST", "/api/v1/workflow/voice/trees", { name: "A tree", content: {} }],
      ["POST", "/api/v1/ingestion/knowledge-bases", { name: "A knowledge" }],
      ["POST", `/api/v1/workflow/workflows/${workflow}/webhooks`, { name: "A hook" }],
      ["PUT", `/api/v1/workflow/workflows/${workflow}/schedule`, { cron: "0 9 * * *", timezone: "UTC" }],
      ["POST", "/api/v1/docgen/documents", { title: "A document", content_html: "<p>A</p>" }],
      ["POST", "/api/v1/eval/rubrics", { workflow_id: workflow, name: "A rubric", rubric_instructions: "Score it", rubric_schema: { type: "object", properties: { score: { type: "number" } } } }]
    ]
    for (const [method, path, body] of requests) yield* http(method, path, { token, body })
    const entry = yield* http("POST", "/api/v1/integrations/catalog", { token, body: { name: "a-entry", category: "crm", functions: [] } })
    const install = yield* http("POST", "/api/v1/integrations/integrations", { token, body: { catalog_id: entry.body.id } })
    yield* http("PUT", `/api/v1/integrations/integrations/${install.body.id}/credentials`, { token, body: { capability: "agent_tool", credentials: { api_key: "a-secret-value" } } })
  })

layer(RunPlatformLive({ TRUST_PROXY: "true" }), { excludeTestServices: true, timeout: "300 seconds" })("the tenant and role matrix", (it) => {
  it.effect("every route naming a resource, called with tenant A's ids by every role of tenant B (JWT and API key): never answered; A untouched; no secret in any answer", () =>
    Effect.gen(function*() {
      const env = yield* adminToken
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: env })
      const tenantA = me.body.user.tenant_id as string
      const a = yield* createMember(env, "system_admin", { tenantId: tenantA })
      const aToken = yield* loginToken(a.email, a.password)
      yield* seed(aToken, tenantA)
      const tenantB = (yield* createTenant(env, `matrix-b-${Date.now().toString(36)}`)).id as string
      const attackers: Array<{ role: Role; headers: { token?: string; apiKey?: string } }> = []
      for (const role of Roles.filter((r) => r !== "env_admin")) {
        const m = yield* createMember(env, role, { tenantId: tenantB })
        const token = yield* loginToken(m.email, m.password)
        attackers.push({ role, headers: { token } })
        const key = yield* http("POST", "/api/v1/auth/api-keys", { token, body: { name: `${role} key` } })
        if (key.status === 201) attackers.push({ role, headers: { apiKey: key.body.key as string } })
      }

      const doc = (yield* http("GET", "/api/v1/openapi.json")).body as { paths: Record<string, Record<string, unknown>> }
      const ops: Array<Op> = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).filter((m) => ["get", "post", "put", "patch", "delete"].includes(m)).map((m) => ({ method: m.toUpperCase(), path }))
      )
      const secrets: Array<string> = []
      const look = (path: string, text: string) => {
        for (const s of secretsIn(json(text))) secrets.push(`${path}${s}`)
      }

      // A's ids per concrete listing path, read as A's System Admin.
      const listings = new Map<string, Array<string>>()
      let everything = new Set<string>()
      const listing = (concrete: string) =>
        Effect.gen(function*() {
          const known = listings.get(concrete)
          if (known !== undefined) return known
          const r = yield* http("GET", concrete, { token: aToken })
          look(concrete, r.text)
          const ids = r.status === 200 ? [...new Set(idsIn(r.body))].slice(0, 4) : []
          listings.set(concrete, ids)
          return ids
        })
      /** Concrete paths of a route with A's ids, each parameter from its parent listing. */
      const concretes = (template: string) =>
        Effect.gen(function*() {
          let paths = [""]
          for (const part of template.split(/(\{[^}]+\})/).filter((p) => p !== "")) {
            const param = /^\{([^}]+)\}$/.exec(part)?.[1]
            if (param === undefined) {
              paths = paths.map((p) => p + part)
              continue
            }
            const next: Array<string> = []
            for (const p of paths) {
              const parent = p.replace(/\/$/, "").replace(/^\/api\/v1\/hcm-ticketing\/groups$/, "/api/v1/auth/groups")
              const listed = FIXED[param] !== undefined ? [FIXED[param]] : yield* listing(parent)
              // A parameter without a listing of its own takes other ids of A: still A's, so still never answered.
              const ids = listed.length > 0 ? listed : [...everything].sort(() => Math.random() - 0.5).slice(0, 2)
              next.push(...ids.slice(0, 2).map((id) => p + encodeURIComponent(id)))
            }
            paths = next.slice(0, 3)
          }
          return paths
        })
      for (const op of ops.filter((o) => o.method === "GET" && !o.path.includes("{"))) yield* listing(op.path)
      everything = new Set([...listings.values()].flat())
      const listedBefore = new Set(everything)
      everything.add(tenantA).add(a.id)

      const breaches: Array<string> = []
      let requests = 0
      let covered = 0
      for (const op of ops.filter((o) => o.path.includes("{") && !PUBLIC.some((p) => p.test(o.path)))) {
        const paths = yield* concretes(op.path)
        if (paths.length > 0) covered++
        for (const path of paths) {
          for (const attacker of attackers) {
            const r = yield* http(op.method, path, { ...attacker.headers, body: op.method === "GET" || op.method === "DELETE" ? undefined : {}, headers: { "x-forwarded-for": `10.9.${requests % 250}.${(requests >> 8) % 250 + 1}` } })
            requests++
            look(path, r.text)
            if (r.status < 400 || r.status >= 500) breaches.push(`${attacker.role}${attacker.headers.apiKey !== undefined ? " (key)" : ""} ${op.method} ${path} -> ${r.status} ${r.text.slice(0, 160)}`)
          }
        }
      }
      assert.deepStrictEqual(breaches.slice(0, 20), [], `${breaches.length} of ${requests} cross-tenant requests were answered`)
      assert.isAbove(covered, 180, "the routes that name a resource were reached with real ids of A")

      // A's resources are all still listed.
      listings.clear()
      for (const op of ops.filter((o) => o.method === "GET" && !o.path.includes("{"))) yield* listing(op.path)
      const after = new Set([...listings.values()].flat())
      assert.deepStrictEqual([...listedBefore].filter((id) => !after.has(id)), [], "nothing of A's was removed")
      assert.deepStrictEqual(secrets, [], "no answer carries a secret field")
    }))
})

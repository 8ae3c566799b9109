import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { FIXED } from "../support/MatrixWalk.js"
import { RunPlatformLive } from "../support/RunPlatform.js"

interface Parameter {
  readonly name: string
  readonly in: string
  readonly schema?: { readonly description?: string; readonly pattern?: string }
}

type OpenApiDocument = { paths: Record<string, Record<string, { parameters?: ReadonlyArray<Parameter> }>> }

/** Every GET query parameter the document types as an RFC 3339 date-time. */
const timestampFilters = (document: OpenApiDocument) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    (item.get?.parameters ?? []).filter((p) => p.in === "query" && /RFC 3339/.test(JSON.stringify(p.schema ?? {}))).map((p) => ({ path, name: p.name }))
  )

/** Every GET of the OpenAPI document with a page_size or limit query parameter. */
const listOperations = (document: OpenApiDocument) =>
  Object.entries(document.paths).flatMap(([path, item]) => {
    const parameters = item.get?.parameters ?? []
    const sizes = parameters.filter((p) => p.in === "query" && (p.name === "page_size" || p.name === "limit")).map((p) => p.name)
    return item.get !== undefined && sizes.length > 0 ? [{ path, sizes, pathParameters: parameters.filter((p) => p.in === "path").map((p) => p.name) }] : []
  })

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("list conventions, from the OpenAPI document", (it) => {
  it.effect("page_size and limit above 100 are capped at 100, never refused, on every list", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: admin })
      yield* http("PATCH", `/api/v1/auth/tenants/${me.body.user.tenant_id}/settings`, {
        token: admin,
        body: { user_groups_enabled: true, ticketing_enabled: true }
      })
      const document = (yield* http("GET", "/api/v1/openapi.json")).body
      const operations = listOperations(document)
      assert.isAbove(operations.length, 25, "the document's lists")
      const refused: Array<string> = []
      let capped = 0
      for (const op of operations) {
        const target = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => FIXED[name] ?? randomUUID())
        const query = op.sizes.map((name) => `${name}=1000`).join("&")
        const answer = yield* http("GET", `${target}?${query}`, { token: admin })
        const named = JSON.stringify(answer.body?.details ?? []) + String(answer.body?.message ?? "")
        if (answer.status === 400 && /page_size|limit/.test(named)) refused.push(`${op.path}: ${answer.text.slice(0, 200)}`)
        if (answer.status === 200) {
          for (const name of op.sizes) {
            if (typeof answer.body?.[name] === "number") {
              assert.strictEqual(answer.body[name], 100, `${op.path} answers its ${name} as capped`)
              capped++
            }
          }
        }
      }
      assert.deepStrictEqual(refused, [])
      assert.isAbove(capped, 10, "lists answered with their capped size")
    }))

  it.effect("every timestamp filter takes RFC 3339 only: anything else is 400 naming the parameter", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const document = (yield* http("GET", "/api/v1/openapi.json")).body
      const filters = timestampFilters(document)
      assert.includeMembers(filters.map((f) => f.name), ["since", "start_time", "end_time", "from", "to", "created_after", "created_before"])
      for (const filter of filters) {
        const target = filter.path.replace(/\{([^}]+)\}/g, (_, name: string) => FIXED[name] ?? randomUUID())
        for (const value of ["yesterday", "2026-01-31", "Jan 31 2026 10:00", "1769860800"]) {
          const answer = yield* http("GET", `${target}?${filter.name}=${encodeURIComponent(value)}`, { token: admin })
          assert.strictEqual(answer.status, 400, `${filter.path} ${filter.name}=${value}: ${answer.text}`)
          assert.include(JSON.stringify(answer.body.details ?? []) + answer.body.message, filter.name)
        }
        const fine = yield* http("GET", `${target}?${filter.name}=${encodeURIComponent("2026-01-31T10:00:00Z")}`, { token: admin })
        assert.notStrictEqual(fine.status, 400, `${filter.path} ${filter.name}: ${fine.text}`)
      }
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { TestPlatform, TestPlatformLive } from "../support/TestPlatform.js"

const root = path.join(import.meta.dirname, "..", "..")
// Never a synchronous child here: the platform under test answers from this process's event loop.
const run = (file: string, args: ReadonlyArray<string>, options: { cwd: string; env: NodeJS.ProcessEnv }) =>
  Effect.promise(() =>
    promisify(execFile)(file, [...args], { ...options, encoding: "utf8", timeout: 90_000 }).then(
      ({ stdout, stderr }) => ({ ok: true, out: `${stdout}${stderr}` }),
      (error: { stdout?: string; stderr?: string; message: string }) => ({ ok: false, out: `${error.stdout ?? ""}${error.stderr ?? ""}${error.message}` })
    )
  )
const METHODS = new Set(["get", "put", "post", "patch", "delete"])

interface Operation {
  readonly summary?: string
  readonly description?: string
  readonly tags?: ReadonlyArray<string>
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string; readonly schema: { readonly type?: string } }>
  readonly responses: Record<string, { readonly content?: Record<string, { readonly schema: { readonly $ref?: string; readonly type?: string } }> }>
}

layer(TestPlatformLive({ redis: false }), { excludeTestServices: true, timeout: "120 seconds" })("the API description", (it) => {
  it.effect("the OpenAPI document: summaries and tags everywhere, servers, named bodies, typed query numbers and booleans; redocly's recommended rules pass", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* TestPlatform
      const spec = (yield* http("GET", "/api/v1/openapi.json")).body as {
        servers: ReadonlyArray<{ url: string }>
        paths: Record<string, Record<string, Operation>>
        components: { schemas: Record<string, unknown> }
      }
      assert.deepStrictEqual(spec.servers.map((s) => s.url), [baseUrl])
      const operations = Object.entries(spec.paths).flatMap(([p, item]) =>
        Object.entries(item).filter(([m]) => METHODS.has(m)).map(([m, op]) => ({ at: `${m.toUpperCase()} ${p}`, op }))
      )
      assert.isAbove(operations.length, 250)
      for (const { at, op } of operations) {
        assert.isNotEmpty(op.summary ?? "", `${at} has a summary`)
        assert.isNotEmpty(op.tags ?? [], `${at} has a tag`)
        for (const [status, response] of Object.entries(op.responses)) {
          const schema = response.content?.["application/json"]?.schema
          if (!status.startsWith("2") || schema === undefined) continue
          const named = schema.$ref ?? (schema.type === "array" ? (schema as { items?: { $ref?: string } }).items?.$ref : undefined)
          assert.isDefined(named, `${at} ${status}: its body is a named schema`)
        }
      }
      const runStart = spec.paths["/api/v1/workflow/workflows/{id}/run"].post
      assert.strictEqual(runStart.responses["202"].content!["application/json"].schema.$ref, "#/components/schemas/Run")
      for (const name of ["Run", "Workflow", "WorkflowPage", "RunPage", "Version", "HitlPage"]) assert.property(spec.components.schemas, name)
      // The stream's events are a named schema, each with its run_id, and the stream operations point to it.
      const events = spec.components.schemas.RunStreamEvent as {
        anyOf: ReadonlyArray<{ required: ReadonlyArray<string>; properties: { type: { enum: ReadonlyArray<string> } } }>
      }
      const types = events.anyOf.map((e) => e.properties.type.enum[0])
      for (const type of ["step_started", "step_failed", "tool_called", "run_paused", "run_completed", "run_failed", "run_cancelled", "run_skipped"]) {
        assert.include(types, type)
      }
      assert.isTrue(events.anyOf.every((e) => e.required.includes("run_id")))
      assert.include(spec.paths["/api/v1/workflow/runs/{run_id}/stream"].get.description ?? "", "RunStreamEvent")
      const query = operations.flatMap(({ at, op }) => (op.parameters ?? []).filter((p) => p.in === "query").map((p) => ({ at, ...p })))
      for (const p of query.filter((q) => ["page", "page_size", "limit", "offset", "compare_to"].includes(q.name))) {
        assert.strictEqual(p.schema.type, "integer", `${p.at} ${p.name}`)
      }
      for (const p of query.filter((q) => ["archived", "is_preview", "include_content", "routable"].includes(q.name))) {
        assert.strictEqual(p.schema.type, "boolean", `${p.at} ${p.name}`)
      }

      const dir = path.join(root, ".data", "api-description")
      mkdirSync(dir, { recursive: true })
      const file = path.join(dir, "openapi.json")
      writeFileSync(file, JSON.stringify(spec))
      const lint = yield* run(path.join(root, "node_modules", ".bin", "redocly"), ["lint", "--format=summary", file], {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }
      })
      assert.isTrue(lint.ok, lint.out)
    }))

  it.effect("the README's typed-client example runs against the platform", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* TestPlatform
      const token = yield* adminToken
      const readme = readFileSync(path.join(root, "README.md"), "utf8")
      const example = /<!-- client-example -->\n```ts\n([^]*?)```/.exec(readme)?.[1]
      assert.isDefined(example, "the README has the example")
      // Inside the package, so that `builder-platform/client` resolves as it does for a user (exports).
      const dir = path.join(root, ".data", "client-example")
      mkdirSync(dir, { recursive: true })
      const file = path.join(dir, "example.ts")
      writeFileSync(file, example)
      const { ok, out } = yield* run(process.execPath, ["--import", "tsx", file], { cwd: root, env: { ...process.env, BP_URL: baseUrl, BP_TOKEN: token } })
      assert.isTrue(ok, out)
      assert.match(out, /created Typed client example; \d+ AI Employee\(s\), first page of \d+/)
      assert.include(out, "not found: NOT_FOUND")
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { ErrorCodes } from "../../schemas/ErrorCodes.js"
import { adminToken } from "../support/Fixtures.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { TestPlatform } from "../support/TestPlatform.js"

/**
 * Contract fuzzing (OWASP API Security Top 10, API8 and API4): for every operation of the OpenAPI
 * document, requests generated from its own schemas (path and query parameters, JSON bodies),
 * mostly well-formed with hostile values, sometimes of the wrong shape, and a SQL injection corpus
 * in every string. Every answer must be below 500 (or a documented 501/503), every error in the
 * documented body `{code, message, request_id}` with a catalogued code, and no injection may stall
 * the database (a pg_sleep payload taking effect would show as a slow answer).
 */
/** Fixed by default so that CI is repeatable; `FUZZ_SEED=random` (or a number) explores further. */
const SEED = process.env.FUZZ_SEED === "random" ? Date.now() % 1_000_000 : Number(process.env.FUZZ_SEED ?? 20_261_123)
const PER_OPERATION = Number(process.env.FUZZ_PER_OPERATION ?? 12)

const INJECTIONS = [
  "' OR '1'='1",
  "1' OR 1=1 --",
  "'; DROP TABLE users; --",
  "\" OR \"\"=\"",
  "' UNION SELECT password_hash, email FROM users --",
  "'; SELECT pg_sleep(3); --",
  "1; SELECT pg_sleep(3)",
  "%' AND 1=1 AND '%'='",
  "$1",
  "\\'",
  "../../../etc/passwd",
  "{{7*7}}${7*7}",
  "<script>alert(1)</script>",
  "ö中文😀\u202e",
  "",
  " ",
  "-1",
  "99999999999999999999999",
  "00000000-0000-0000-0000-000000000000"
]

type JsonSchema = {
  readonly $ref?: string
  readonly type?: string | ReadonlyArray<string>
  readonly enum?: ReadonlyArray<unknown>
  readonly properties?: Record<string, JsonSchema>
  readonly required?: ReadonlyArray<string>
  readonly items?: JsonSchema
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly oneOf?: ReadonlyArray<JsonSchema>
  readonly allOf?: ReadonlyArray<JsonSchema>
  readonly format?: string
  readonly const?: unknown
}
interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "header" | "cookie"
  readonly schema?: JsonSchema
}
interface Operation {
  readonly parameters?: ReadonlyArray<Parameter>
  readonly requestBody?: { readonly content: Record<string, { readonly schema: JsonSchema }> }
}

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 1, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.emailAddress() },
  { weight: 1, arbitrary: fc.date({ min: new Date(0), max: new Date(4102444800000) }).map((d) => d.toISOString()) }
)
const anyJson = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), hostileString, fc.constant([]), fc.constant({}))

/** An arbitrary of values for a JSON schema: mostly of its shape, with hostile leaves; now and then of another shape. */
const valuesOf = (schema: JsonSchema | undefined, components: Record<string, JsonSchema>, depth = 0): fc.Arbitrary<unknown> => {
  if (schema === undefined || depth > 5) return anyJson
  if (schema.$ref !== undefined) return valuesOf(components[schema.$ref.split("/").pop()!], components, depth + 1)
  const variants = schema.anyOf ?? schema.oneOf
  if (variants !== undefined && variants.length > 0) return fc.oneof(...variants.map((v) => valuesOf(v, components, depth + 1)))
  if (schema.allOf !== undefined && schema.allOf.length > 0) return valuesOf(schema.allOf[0], components, depth + 1)
  if (schema.const !== undefined) return fc.constant(schema.const)
  const shaped = ((): fc.Arbitrary<unknown> => {
    if (schema.enum !== undefined && schema.enum.length > 0) {
      return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: hostileString })
    }
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
    switch (type) {
      case "string":
        return hostileString
      case "integer":
        return fc.oneof(fc.integer({ min: -5, max: 200 }), fc.constantFrom(0, -1, 2 ** 31, Number.MAX_SAFE_INTEGER))
      case "number":
        return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer())
      case "boolean":
        return fc.boolean()
      case "null":
        return fc.constant(null)
      case "array":
        return fc.array(valuesOf(schema.items, components, depth + 1), { maxLength: 3 })
      case "object": {
        const properties = schema.properties ?? {}
        const model = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, valuesOf(v, components, depth + 1)]))
        const required = (schema.required ?? []).filter((k) => k in properties)
        return fc.oneof({ weight: 3, arbitrary: fc.record(model, { requiredKeys: required }) }, {
          weight: 1,
          arbitrary: fc.record(model, { requiredKeys: [] })
        })
      }
      default:
        return anyJson
    }
  })()
  return fc.oneof({ weight: 9, arbitrary: shaped }, { weight: 1, arbitrary: anyJson })
}

const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

/** Routes that end the fuzzer's own session or sign-in state go last, so the rest keep a live token. */
const SIGN_IN = /\/auth\/(login|refresh|logout|auth\/|switch-tenant)/

interface Anomaly {
  readonly request: string
  readonly status: number
  readonly why: string
  readonly body: string
}

layer(RunPlatformLive({ TRUST_PROXY: "true", WORKER_WARM_THREADS: "1" }), { excludeTestServices: true, timeout: "300 seconds" })("contract fuzzing", (it) => {
  it.effect(
    `every operation of the OpenAPI document, ${PER_OPERATION} generated requests each (seed ${SEED}): no 500, every error documented, no injection reaching SQL`,
    () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestPlatform
        let token = yield* adminToken
        const doc = yield* Effect.promise(() =>
          fetch(`${baseUrl}/api/v1/openapi.json`).then((r) =>
            r.json() as Promise<{ paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, JsonSchema> } }>
          )
        )
        const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
          Object.entries(item).filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method)).map(([method, op]) => ({
            path,
            method: method.toUpperCase(),
            op
          }))
        ).sort((a, b) => Number(SIGN_IN.test(a.path)) - Number(SIGN_IN.test(b.path)))
        assert.isAbove(operations.length, 200, "the document lists the platform's operations")
        const codes = new Set<string>(ErrorCodes)
        const anomalies: Array<Anomaly> = []
        let sent = 0
        const histogram = new Map<number, number>()
        // Ids of the resources earlier answers created or listed, so that later requests reach real
        // rows; the fuzzer's own user and tenant are kept out (it would lock itself out).
        const me = JSON.parse(
          yield* Effect.promise(() => fetch(`${baseUrl}/api/v1/auth/users/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text()))
        )
        const own = new Set<string>([me.user.id, me.user.tenant_id])
        const pool: Array<string> = []
        const harvest = (text: string) => {
          const found = ((): unknown => {
            try {
              return JSON.parse(text)
            } catch {
              return undefined
            }
          })()
          const records = typeof found === "object" && found !== null
            ? [found, ...Object.values(found).flatMap((v) => (Array.isArray(v) ? v.slice(0, 3) : []))]
            : []
          for (const r of records) {
            const id = (r as Record<string, unknown>).id
            if (typeof id === "string" && !own.has(id) && !pool.includes(id)) pool.push(id)
          }
          if (pool.length > 300) pool.splice(0, pool.length - 300)
        }
        const pathValue = (schema: JsonSchema | undefined) =>
          fc.oneof(
            { weight: pool.length > 0 ? 4 : 0, arbitrary: pool.length > 0 ? fc.constantFrom(...pool) : fc.uuid() },
            { weight: 2, arbitrary: fc.uuid() },
            { weight: 1, arbitrary: valuesOf(schema, doc.components.schemas) },
            { weight: 1, arbitrary: fc.constantFrom(...INJECTIONS) }
          )
        for (const [index, { path, method, op }] of operations.entries()) {
          const params = op.parameters ?? []
          const bodySchema = op.requestBody?.content["application/json"]?.schema
          const request = fc.record({
            path: fc.record(Object.fromEntries(params.filter((p) => p.in === "path").map((p) => [p.name, pathValue(p.schema)]))),
            query: fc.record(Object.fromEntries(params.filter((p) => p.in === "query").map((p) => [p.name, valuesOf(p.schema, doc.components.schemas)])), {
              requiredKeys: []
            }),
            body: bodySchema !== undefined ? valuesOf(bodySchema, doc.components.schemas) : fc.constant(undefined)
          })
          for (const sample of fc.sample(request, { numRuns: PER_OPERATION, seed: SEED + index })) {
            const url = new URL(baseUrl + path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(asText(sample.path[name]) || "x")))
            for (const [k, v] of Object.entries(sample.query)) if (v !== undefined) url.searchParams.set(k, asText(v))
            const started = Date.now()
            const answer = yield* Effect.promise(async () => {
              const response = await fetch(url, {
                method,
                redirect: "manual",
                headers: {
                  authorization: `Bearer ${token}`,
                  "x-forwarded-for": `10.${index % 250}.${sent % 250}.${(sent >> 8) % 250 + 1}`,
                  ...(sample.body !== undefined ? { "content-type": "application/json" } : {})
                },
                ...(sample.body !== undefined ? { body: JSON.stringify(sample.body) } : {}),
                signal: AbortSignal.timeout(20_000)
              })
              // A stream that opens is not read to its end.
              const text = String(response.headers.get("content-type") ?? "").includes("event-stream")
                ? (await response.body?.cancel(), "")
                : await response.text()
              return { status: response.status, text, ms: Date.now() - started }
            })
            sent++
            if (answer.status < 300) harvest(answer.text)
            histogram.set(answer.status, (histogram.get(answer.status) ?? 0) + 1)
            const line = `${method} ${url.pathname}${url.search} ${sample.body !== undefined ? JSON.stringify(sample.body).slice(0, 300) : ""}`
            const anomaly = (why: string) => anomalies.push({ request: line, status: answer.status, why, body: answer.text.slice(0, 300) })
            if (answer.status >= 500 && answer.status !== 501 && answer.status !== 503) anomaly("a 5xx")
            // A hang, not a speed figure (speed lives in bench/): a spec parsed on the worker pool once
            // took 3.3 s beside the whole suite on two cores.
            if (answer.ms > 10_000) anomaly(`answered in ${answer.ms} ms`)
            if (answer.status >= 400) {
              const body = ((): Record<string, unknown> | undefined => {
                try {
                  return JSON.parse(answer.text) as Record<string, unknown>
                } catch {
                  return undefined
                }
              })()
              if (body === undefined || typeof body.message !== "string" || typeof body.request_id !== "string" || !codes.has(String(body.code))) {
                anomaly("an undocumented error body")
              }
            }
            if (answer.status === 401 && !SIGN_IN.test(path)) token = yield* adminToken
          }
        }
        const statuses = JSON.stringify(Object.fromEntries([...histogram].sort(([a], [b]) => a - b)))
        assert.deepStrictEqual(anomalies.slice(0, 15), [], `seed ${SEED}: ${anomalies.length} anomalies in ${sent} requests (statuses ${statuses})`)
        assert.isAbove(
          (histogram.get(200) ?? 0) + (histogram.get(201) ?? 0),
          sent / 20,
          `enough requests pass validation to reach the services (statuses ${statuses})`
        )
      }),
    180_000
  )
})

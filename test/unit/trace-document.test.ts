import { assert, describe, it } from "@effect/vitest"
import { logRecord } from "../../otel/OtlpJson.js"
import type { OtlpSpan } from "../../otel/OtlpSpan.js"
import { classify, detailFor, redactLog, redactSpan } from "../../otel/Redaction.js"
import type { TraceDocument } from "../../otel/TraceDocument.js"
import { fitToCap, TRUNCATION_MARK } from "../../otel/Truncation.js"

const span = (attributes: Record<string, string>, status: { code: number; message?: string } = { code: 1 }): OtlpSpan => ({
  traceId: "a".repeat(32),
  spanId: "b".repeat(16),
  name: "llm.call",
  startTimeUnixNano: "1",
  endTimeUnixNano: "2",
  attributes: Object.entries(attributes).map(([key, v]) => ({ key, value: { stringValue: v } })),
  events: [{ name: "exception", attributes: [{ key: "exception.message", value: { stringValue: "boom" } }] }],
  status
})

const log = (body: string) =>
  logRecord({ time: new Date(0), severity: "INFO", body, attributes: { "event.name": "step_started" }, traceId: "a".repeat(32), spanId: "b".repeat(16) })

const doc = (spans: ReadonlyArray<OtlpSpan>, logs: ReadonlyArray<ReturnType<typeof log>> = []): TraceDocument => ({
  traces: { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "s" }, spans }] }] },
  logs: { resourceLogs: logs.length === 0 ? [] : [{ resource: { attributes: [] }, scopeLogs: [{ scope: { name: "s" }, logRecords: logs }] }] }
})

const size = (d: unknown) => Buffer.byteLength(JSON.stringify({ ...(d as object), truncated: true }))
const values = (d: TraceDocument) => d.traces.resourceSpans[0].scopeSpans[0].spans[0].attributes as Array<{ key: string; value: { stringValue: string } }>

describe("trace detail by role", () => {
  it("classifies every attribute; unknown keys count as content", () => {
    assert.strictEqual(detailFor("env_admin"), "content")
    assert.strictEqual(detailFor("system_admin"), "content")
    assert.strictEqual(detailFor("builder_admin"), "operational")
    for (const role of ["user_admin", "builder", "user", "no_access"] as const) assert.strictEqual(detailFor(role), "basic")
    assert.strictEqual(classify("node.name"), "basic")
    assert.strictEqual(classify("gen_ai.usage.input_tokens"), "operational")
    assert.strictEqual(classify("tool.result"), "operational")
    assert.strictEqual(classify("llm.instructions"), "content")
    assert.strictEqual(classify("something.new"), "content")
  })

  it("redacts spans and logs", () => {
    const s = span({ "node.id": "a", "gen_ai.request.model": "m", "llm.instructions": "secret" }, { code: 2, message: "Model answered 500" })
    const operational = redactSpan(s, "operational")
    assert.deepStrictEqual((operational.attributes as Array<{ key: string }>).map((a) => a.key), ["node.id", "gen_ai.request.model"])
    assert.strictEqual((operational.status as { message: string }).message, "Model answered 500")
    assert.strictEqual((operational.events as Array<unknown>).length, 1)
    const basic = redactSpan(s, "basic")
    assert.deepStrictEqual((basic.attributes as Array<{ key: string }>).map((a) => a.key), ["node.id"])
    assert.deepStrictEqual(basic.status, { code: 2, message: "error" })
    assert.deepStrictEqual(basic.events, [])
    assert.strictEqual(redactSpan(s, "content"), s)
    assert.deepStrictEqual(redactLog(log("Step 'a' failed: secret"), "basic").body, { stringValue: "step_started" })
    assert.deepStrictEqual(redactLog(log("Step 'a' failed: secret"), "operational").body, { stringValue: "Step 'a' failed: secret" })
  })
})

describe("trace size cap", () => {
  it("leaves a document under the cap alone", () => {
    const d = doc([span({ a: "x" })])
    assert.deepStrictEqual(fitToCap(d, 10_000), { document: d, truncated: false })
  })

  it("cuts the largest values first, down to the longest length that fits", () => {
    const d = doc([span({ big: "b".repeat(5000), medium: "m".repeat(800), small: "s".repeat(10) })])
    const fitted = fitToCap(d, 3000)!
    assert.isTrue(fitted.truncated)
    assert.isAtMost(size(fitted.document), 3000)
    const [big, medium, small] = values(fitted.document).map((a) => a.value.stringValue)
    assert.isTrue(big.endsWith(TRUNCATION_MARK))
    assert.strictEqual(medium, "m".repeat(800))
    assert.strictEqual(small, "s".repeat(10))
    // The original is not changed.
    assert.strictEqual(values(d)[0].value.stringValue.length, 5000)
  })

  it("drops the logs when cutting values is not enough, and gives up when even that is not", () => {
    const logs = Array.from({ length: 40 }, (_, i) => log(`log ${i}`))
    const d = doc([span({ a: "x".repeat(200) })], logs)
    const fitted = fitToCap(d, 1500)!
    assert.deepStrictEqual(fitted.document.logs.resourceLogs, [])
    assert.isTrue(fitted.truncated)
    assert.isUndefined(fitToCap(doc(Array.from({ length: 30 }, () => span({ a: "x" }))), 1500))
  })
})

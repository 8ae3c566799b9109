import { assert, describe, it } from "@effect/vitest"
import { uuidV7 } from "../../platform/TimedId.js"
import type { EventWrite, SpanWrite } from "../../runtime/run/Batch.js"
import { decodeRecord, derivedStepId, encodeRecord, recordHasDetail, recordHasKeys, withoutDetail } from "../../runtime/run/JournalRecord.js"

const runId = uuidV7()
const stepA = derivedStepId(runId, "a")

const nodeEnd: ReadonlyArray<EventWrite> = [
  { type: "token", payload: { step_id: stepA, node_id: "a", delta: "Hello " }, key: undefined, spanId: "9a15447e491f7a8b" },
  { type: "token", payload: { step_id: stepA, node_id: "a", delta: "world" }, key: undefined, spanId: "9a15447e491f7a8b" },
  { type: "agent_completed", payload: { step_id: stepA, node_id: "a", output: { text: "Hello world" } }, key: "agent_completed:a", spanId: "9a15447e491f7a8b" },
  // A step id that is not the derived one (a step of a run started before this release) is kept as written.
  {
    type: "step_completed",
    payload: { step_id: "e062d57e-1a5b-4bda-b26d-e678b14e0761", node_id: "b", status: "completed" },
    key: "step_completed:b",
    spanId: undefined
  }
]

const spans: ReadonlyArray<SpanWrite> = [{
  span_id: "9a15447e491f7a8b",
  scope: "builder-platform",
  start: "1795763018660696203",
  spans: [
    { i: "9a15447e491f7a8b", n: "node a", s: "1795763018660696203", d: 84668416, p: 0, a: { "node.id": "a", "step.id": stepA, "node.type": "agent" } },
    { i: "1578ee21c1def79d", n: "agent.run", s: "1795763018694609336", d: 50737547, p: "9a15447e491f7a8b", a: { "agent.type": "respond" } }
  ]
}, {
  span_id: "196f5cb3cd742f4d",
  scope: "other-scope",
  start: "1795763018694627633",
  spans: [{ i: "196f5cb3cd742f4d", n: "x", s: "1795763018694627633", d: 5 }]
}]

describe("journal records (runtime/run/JournalRecord.ts)", () => {
  it("give back a commit's events, numbered up to the record's seq, and its spans, as written", () => {
    const body = encodeRecord(runId, nodeEnd, spans)
    const record = decodeRecord(runId, 17, body)
    assert.deepStrictEqual(record.events.map((e) => e.seq), [14, 15, 16, 17])
    assert.deepStrictEqual(record.events.map((e) => ({ type: e.type, payload: e.payload, key: e.key, spanId: e.spanId })), nodeEnd.map((e) => ({ ...e })))
    assert.deepStrictEqual(record.spans, spans.map((s) => ({ scope: s.scope, spans: s.spans })))
  })

  it("are small: the dictionary and the derived step ids leave a node's end in a few hundred bytes", () => {
    const json = JSON.stringify({ nodeEnd, spans })
    const body = encodeRecord(runId, nodeEnd, spans)
    assert.isBelow(body.length, json.length / 3, `${body.length} bytes of ${json.length}`)
    assert.notInclude(body.toString("latin1"), stepA)
  })

  it("of any size read back: a long streamed reply, compressed with the full window, repeats little of its tokens", () => {
    let seed = 7
    const word = () => (seed = (seed * 48271) % 2147483647).toString(36).slice(0, 5)
    const text = Array.from({ length: 2000 }, word).join(" ")
    const tokens: Array<EventWrite> = Array.from({ length: 40 }, (_, i) => ({
      type: "token",
      payload: { step_id: stepA, node_id: "a", delta: text.slice(i * 300, (i + 1) * 300) },
      key: undefined,
      spanId: undefined
    }))
    const events: Array<EventWrite> = [...tokens, {
      type: "agent_completed",
      payload: { step_id: stepA, node_id: "a", output: { text } },
      key: "agent_completed:a",
      spanId: undefined
    }]
    const body = encodeRecord(runId, events, [])
    assert.deepStrictEqual(decodeRecord(runId, 100, body).events.map((e) => e.payload), events.map((e) => e.payload))
    // The reply's text again in its output costs little: the window reaches back over the tokens.
    assert.isBelow(body.length, encodeRecord(runId, tokens, []).length * 1.2)
  })

  it("say whether they hold keys and detail", () => {
    assert.isTrue(recordHasKeys(nodeEnd))
    assert.isFalse(recordHasKeys(nodeEnd.slice(0, 2)))
    assert.isTrue(recordHasDetail(nodeEnd, []))
    assert.isTrue(recordHasDetail(nodeEnd.slice(2), spans))
    assert.isFalse(recordHasDetail(nodeEnd.slice(2), []))
  })

  it("lose their streamed text and spans to the detail retention, the other events keeping their numbers", () => {
    const stripped = withoutDetail(runId, 17, encodeRecord(runId, nodeEnd, spans))
    assert.isDefined(stripped)
    const record = decodeRecord(runId, 17, stripped)
    assert.deepStrictEqual(record.events.map((e) => [e.seq, e.type]), [[16, "agent_completed"], [17, "step_completed"]])
    assert.deepStrictEqual(record.spans, [])
    assert.isUndefined(withoutDetail(runId, 15, encodeRecord(runId, nodeEnd.slice(0, 2), spans)))
  })

  it("refuse a format they do not know", () => {
    const body = encodeRecord(runId, nodeEnd, [])
    body[0] = 9
    assert.throws(() => decodeRecord(runId, 4, body), /unknown format 9/)
  })

  it("derive a step's id from its run and node: stable, distinct per node and run, in the run's time", () => {
    assert.strictEqual(derivedStepId(runId, "a"), stepA)
    assert.notStrictEqual(derivedStepId(runId, "b"), stepA)
    assert.notStrictEqual(derivedStepId(uuidV7(), "a"), stepA)
    assert.strictEqual(stepA.slice(0, 13), runId.slice(0, 13))
  })
})

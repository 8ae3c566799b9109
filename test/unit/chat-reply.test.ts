import { assert, describe, it } from "@effect/vitest"
import type { RunContext } from "../../runtime/dag/Context.js"
import type { DagNode } from "../../schemas/Dag.js"
import { chatReply, dedupeSources, toButtons } from "../../services/chat/ChatReply.js"
import { findPii, replacePii } from "../../services/chat/PiiDetection.js"
import { cleanTitle } from "../../services/chat/Titles.js"

const agent = (id: string, agent_type: string): DagNode => ({
  id,
  type: "agent",
  agent_config: { agent_type, type_version: "v1", system_prompt_template: "" }
})

const ctx = (nodes: RunContext["nodes"]): RunContext => ({ workflow_input: {}, nodes, run: { id: "r", trigger_type: "ui" } })

describe("the assistant message of a chat run", () => {
  //  classify ──▶ search ──▶ polish
  const nodes = [agent("classify", "intent_classification"), agent("search", "search_respond"), agent("polish", "extraction")]
  const outputs = ctx({
    classify: { output: { intent: "billing" } },
    search: {
      output: {
        text: "Refunds take 30 days [1].",
        citations: [
          { document_id: "d1", chunk_id: "c1", title: "Policy", score: 0.4 },
          { document_id: "d1", chunk_id: "c2", title: "Policy", score: 0.9 },
          { document_id: "d2", chunk_id: "c3", title: "FAQ", score: 0.5 }
        ]
      }
    },
    polish: { output: { fields: {} } }
  })
  const order = ["classify", "search", "polish"]

  it("is the last respond/search_respond text, with its citations deduplicated by document", () => {
    const reply = chatReply(nodes, order, outputs, {})
    assert.strictEqual(reply.text, "Refunds take 30 days [1].")
    assert.deepStrictEqual(reply.sources.map((s) => [s.document_id, s.chunk_id]), [["d1", "c2"], ["d2", "c3"]])
    assert.deepStrictEqual(reply.response_buttons, [])
  })

  it("is the output named response when there is one; buttons come from response_buttons", () => {
    const reply = chatReply(nodes, order, outputs, { response: "Hello", response_buttons: "[\"Yes\", {\"label\": \"No\", \"value\": \"n\"}]" })
    assert.strictEqual(reply.text, "Hello")
    assert.strictEqual(reply.sources.length, 2)
    assert.deepStrictEqual(reply.response_buttons, [{ label: "Yes", value: "Yes" }, { label: "No", value: "n" }])
  })

  it("falls back to the last agent with a text, else is empty", () => {
    const custom = [agent("act", "custom")]
    assert.strictEqual(chatReply(custom, ["act"], ctx({ act: { output: { text: "done" } } }), {}).text, "done")
    assert.strictEqual(chatReply(custom, [], ctx({}), {}).text, "")
  })

  it("helpers: buttons and sources tolerate junk", () => {
    assert.deepStrictEqual(toButtons("not json"), [])
    assert.deepStrictEqual(toButtons([1, "", { value: "v" }]), [{ label: "v", value: "v" }])
    assert.deepStrictEqual(dedupeSources([null, { title: "no id" }]), [])
    assert.strictEqual(cleanTitle("Title: \"Late order refund.\"\nmore"), "Late order refund")
  })
})

describe("PII in user_context", () => {
  it("finds emails and phone numbers in text, not ordinary numbers", () => {
    const text = "mail ada@x.test, call +1 (555) 010-9999; order 12345 on 2024-05-01, ref 12345678-4989-8065-1234-567812345678"
    assert.deepStrictEqual(findPii(text).map((m) => [m.kind, text.slice(m.start, m.end)]), [
      ["EMAIL", "ada@x.test"],
      ["PHONE", "+1 (555) 010-9999"]
    ])
    assert.deepStrictEqual(findPii("fe0bb799-84c5-4989-8065-8adf8832cf82 and 555-0199-4421"), [
      { kind: "PHONE", start: 41, end: 54 }
    ])
  })

  it("replaces whole values under personal keys and leaves the rest", () => {
    const seen: Array<string> = []
    const out = replacePii(
      { name: "Ada", profile: { last_name: "Lovelace", phone: 5550109999, plan: "gold" }, notes: ["reach me at ada@x.test"] },
      (kind, original) => {
        seen.push(original)
        return `[PII_${kind}_0000000000]`
      }
    )
    assert.deepStrictEqual(out, {
      name: "[PII_NAME_0000000000]",
      profile: { last_name: "[PII_NAME_0000000000]", phone: "[PII_PHONE_0000000000]", plan: "gold" },
      notes: ["reach me at [PII_EMAIL_0000000000]"]
    })
    assert.deepStrictEqual(seen, ["Ada", "Lovelace", "5550109999", "ada@x.test"])
    assert.deepStrictEqual(replacePii({ name: "[PII_NAME_0123456789]" }, () => "again"), { name: "[PII_NAME_0123456789]" })
  })
})

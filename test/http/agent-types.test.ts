import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import ExcelJS from "exceljs"
import pg from "pg"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { type ChatCompletionRequest, ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"

const execute = (token: string, body: unknown) => http("POST", "/api/v1/agent/agents/test-execute", { token, body })

const download = (token: string, path: string) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(async () => {
      const res = await fetch(platform.baseUrl + path, { headers: { authorization: `Bearer ${token}` } })
      return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) }
    }))

const outbox = (to: string) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: platform.databaseUrl })
      await client.connect()
      try {
        return (await client.query("SELECT subject FROM mail_outbox WHERE to_address = $1", [to])).rows as Array<{ subject: string }>
      } finally {
        await client.end()
      }
    }))

interface SentMessage {
  readonly role: string
  readonly content: string | null
  readonly tool_call_id?: string
  readonly tool_calls?: ReadonlyArray<{ id: string; function: { name: string; arguments: string } }>
}
const messagesOf = (r: ChatCompletionRequest) => r.messages as unknown as ReadonlyArray<SentMessage>
const toolNames = (r: ChatCompletionRequest) => (r.tools as ReadonlyArray<{ function: { name: string } }> | undefined ?? []).map((t) => t.function.name)

const rules = [
  { id: "has_amount", description: "The request names an amount" },
  { id: "polite", description: "The request is polite" },
  { id: "small", description: "Amount under 100", condition: { ref: "workflow_input.amount", op: "lt", value: 100 } }
]

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("agent types", (it) => {
  it.effect("rule_validation: per-rule verdicts (model and condition rules) and a downloadable Excel report", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      let calls = 0
      model.setScript(() => {
        calls++
        // The first reply forgets a rule: it is retried once with the problem named.
        return calls === 1
          ? { text: JSON.stringify({ results: [{ rule_id: "has_amount", passed: true, reason: "mentions 250" }] }) }
          : {
            text: JSON.stringify({
              results: [
                { rule_id: "has_amount", passed: true, reason: "mentions 250" },
                { rule_id: "polite", passed: true, reason: "says please" }
              ]
            })
          }
      })
      const r = yield* execute(token, {
        agent_config: {
          agent_type: "rule_validation",
          system_prompt_template: "Check the expense request",
          type_config: { rules, report: true, report_title: "Expense check" }
        },
        inputs: { text: "Please refund 250 euros", amount: 250 }
      })
      assert.strictEqual(r.body.status, "completed", JSON.stringify(r.body))
      assert.strictEqual(calls, 2)
      assert.include(messagesOf(model.requests.at(-1)!).at(-1)!.content!, "rule 'polite' is answered 0 times")
      const sent = model.requests.at(-1) as unknown as {
        response_format: { json_schema: { schema: { properties: { results: { items: { properties: { rule_id: { enum: Array<string> } } } } } } } }
      }
      assert.deepStrictEqual(sent.response_format.json_schema.schema.properties.results.items.properties.rule_id.enum, ["has_amount", "polite"])
      assert.strictEqual(r.body.output.passed, false)
      assert.deepStrictEqual(r.body.output.results.map((x: { rule_id: string; passed: boolean }) => [x.rule_id, x.passed]), [
        ["has_amount", true],
        ["polite", true],
        ["small", false]
      ])
      assert.include(r.body.output.results[2].reason, "value: 250")

      const file = yield* download(token, `/api/v1/agent/files/${r.body.output.report_file_id}`)
      assert.strictEqual(file.status, 200)
      assert.strictEqual(file.headers.get("content-type"), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
      assert.include(file.headers.get("content-disposition")!, "Expense check.xlsx")
      const workbook = new ExcelJS.Workbook()
      yield* Effect.promise(() => workbook.xlsx.load(Buffer.from(file.bytes) as unknown as ArrayBuffer))
      const sheet = workbook.getWorksheet("Validation")!
      const rows = sheet.getSheetValues().slice(2).map((row) => (row as Array<unknown>).slice(1, 4))
      assert.deepStrictEqual(rows, [
        ["has_amount", "The request names an amount", "PASS"],
        ["polite", "The request is polite", "PASS"],
        ["small", "Amount under 100", "FAIL"]
      ])
      assert.strictEqual(workbook.getWorksheet("Summary")!.getCell("B2").value, "FAIL")
      assert.strictEqual((yield* download(token, "/api/v1/agent/files/00000000-0000-4000-8000-000000000000")).status, 404)

      // Condition rules alone need no model call and no report unless asked.
      const before = model.requests.length
      const quick = yield* execute(token, {
        agent_config: { agent_type: "rule_validation", system_prompt_template: "", type_config: { rules: [rules[2]] } },
        inputs: { amount: 20 }
      })
      assert.deepStrictEqual(quick.body.output, { passed: true, results: [{ rule_id: "small", passed: true, reason: quick.body.output.results[0].reason }] })
      assert.strictEqual(model.requests.length, before)
    }))

  it.effect("custom: a tool-call round trip over the knowledge base; the result goes back to the model", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const kb = (yield* http("POST", "/api/v1/ingestion/knowledge-bases", { token, body: { name: "Policies", description: "" } })).body.id
      yield* http("POST", `/api/v1/ingestion/knowledge-bases/${kb}/documents`, {
        token,
        body: { title: "Refund policy", content: "Refunds are paid within 30 days of purchase.", folder_path: "/" }
      })
      model.setScript((r, n) =>
        messagesOf(r).some((m) => m.role === "tool")
          ? { text: "Refunds take up to 30 days." }
          : { toolCalls: [{ id: `call-${n}`, name: "builtin_knowledge_search", arguments: JSON.stringify({ query: "refund" }) }] }
      )
      const r = yield* execute(token, {
        agent_config: { agent_type: "custom", system_prompt_template: "Use the tools to answer." },
        inputs: { question: "How long do refunds take?" },
        action_ids: ["builtin.knowledge_search"],
        knowledge_bases: [kb]
      })
      assert.strictEqual(r.body.status, "completed", JSON.stringify(r.body))
      assert.deepStrictEqual(r.body.output, { text: "Refunds take up to 30 days." })
      const [first, second] = model.requests.slice(-2)
      assert.deepStrictEqual(toolNames(first), ["builtin_knowledge_search"])
      const messages = messagesOf(second)
      const assistant = messages.find((m) => m.role === "assistant")!
      assert.strictEqual(assistant.tool_calls![0].function.name, "builtin_knowledge_search")
      const tool = messages.find((m) => m.role === "tool")!
      assert.strictEqual(tool.tool_call_id, assistant.tool_calls![0].id)
      assert.include(tool.content!, "Refund policy")
      assert.include(tool.content!, "within 30 days")
      assert.strictEqual(r.body.tokens_used > 0, true)
      assert.deepStrictEqual(Object.keys(r.body.token_breakdown), ["test-model"])
    }))

  it.effect("custom: output_schema, bad arguments answered as tool errors, bounded rounds, unknown tools", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const schema = { type: "object", required: ["answer"], properties: { answer: { type: "string" } } }
      model.setScript((r) => {
        const tools = messagesOf(r).filter((m) => m.role === "tool")
        if (tools.length === 0) return { toolCalls: [{ id: "c1", name: "builtin_knowledge_search", arguments: JSON.stringify({ top_k: 3 }) }] }
        return { text: JSON.stringify({ answer: "none found" }) }
      })
      const shaped = yield* execute(token, {
        agent_config: { agent_type: "custom", system_prompt_template: "Answer", output_schema: schema },
        inputs: { q: "x" },
        action_ids: ["builtin.knowledge_search"]
      })
      assert.strictEqual(shaped.body.status, "completed", JSON.stringify(shaped.body))
      assert.deepStrictEqual(shaped.body.output, { answer: "none found" })
      const toolReply = messagesOf(model.requests.at(-1)!).find((m) => m.role === "tool")!
      assert.include(toolReply.content!, "do not match the tool's schema")

      model.setScript((_r, n) => ({ toolCalls: [{ id: `c${n}`, name: "builtin_knowledge_search", arguments: JSON.stringify({ query: "loop" }) }] }))
      const looping = yield* execute(token, {
        agent_config: { agent_type: "custom", system_prompt_template: "Answer", type_config: { max_iterations: 2 } },
        inputs: {},
        action_ids: ["builtin.knowledge_search"]
      })
      assert.strictEqual(looping.body.status, "failed")
      assert.include(looping.body.error, "did not finish within 2 tool-calling rounds")

      const unknown = yield* execute(token, {
        agent_config: { agent_type: "custom", system_prompt_template: "Answer" },
        inputs: {},
        action_ids: ["crm.nothing"]
      })
      assert.strictEqual(unknown.body.status, "failed")
      assert.include(unknown.body.error, "Tools not available: crm.nothing")
    }))

  it.effect("custom: a dry run does not invoke side-effecting tools; a real run does", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const to = `dry.${Date.now()}@example.test`
      model.setScript((r) =>
        messagesOf(r).some((m) => m.role === "tool")
          ? { text: "Done." }
          : { toolCalls: [{ id: "mail", name: "builtin_send_email", arguments: JSON.stringify({ to, subject: "Hello", body: "Hi" }) }] }
      )
      const body = (isDryRun: boolean) => ({
        agent_config: { agent_type: "custom", system_prompt_template: "Send the mail" },
        inputs: {},
        action_ids: ["builtin.send_email"],
        is_dry_run: isDryRun
      })
      const dry = yield* execute(token, body(true))
      assert.strictEqual(dry.body.status, "completed")
      assert.strictEqual(dry.body.is_dry_run, true)
      assert.include(messagesOf(model.requests.at(-1)!).find((m) => m.role === "tool")!.content!, "\"dry_run\":true")
      assert.deepStrictEqual(yield* outbox(to), [])
      const real = yield* execute(token, body(false))
      assert.strictEqual(real.body.status, "completed")
      assert.include(messagesOf(model.requests.at(-1)!).find((m) => m.role === "tool")!.content!, "\"sent\":true")
      assert.deepStrictEqual(yield* outbox(to), [{ subject: "Hello" }])
    }))

  it.effect("a step runs the type version it pins; deleted and broken versions are refused", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => {
        const format = r.response_format as { json_schema: { schema: { required: Array<string> } } }
        return {
          text: JSON.stringify({
            intent: "billing",
            confidence: 0.8,
            ...(format.json_schema.schema.required.includes("reason") ? { reason: "mentions an invoice" } : {})
          })
        }
      })
      const intents = [{ name: "billing", eligibility: [{ ref: "workflow_input.plan", op: "eq", value: "pro" }] }, { name: "other" }]
      const run = (version: string) =>
        execute(token, {
          agent_config: { agent_type: "intent_classification", type_version: version, system_prompt_template: "Classify", type_config: { intents } },
          inputs: { plan: "free" }
        })
      assert.deepStrictEqual((yield* run("v1")).body.output, { intent: "billing", confidence: 0.8, eligible: false })
      // v0 predates eligibility rules; v2 (pre-release) adds the model's reason.
      assert.deepStrictEqual((yield* run("v0")).body.output, { intent: "billing", confidence: 0.8, eligible: true })
      assert.deepStrictEqual((yield* run("v2")).body.output, { intent: "billing", confidence: 0.8, eligible: false, reason: "mentions an invoice" })
      const deleted = yield* execute(token, { agent_config: { agent_type: "search_respond", type_version: "v0", system_prompt_template: "x" }, inputs: {} })
      assert.strictEqual(deleted.status, 422)
      assert.strictEqual(deleted.body.code, "AGENT_TYPE_VERSION_INVALID")
      const broken = yield* execute(token, { agent_config: { agent_type: "rule_validation", type_version: "v0", system_prompt_template: "x" }, inputs: {} })
      assert.strictEqual(broken.status, 422)
      assert.strictEqual(
        (yield* execute(token, { agent_config: { agent_type: "respond", type_version: "v9", system_prompt_template: "x" }, inputs: {} })).status,
        422
      )
    }))
})

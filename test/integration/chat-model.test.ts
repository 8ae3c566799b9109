import { FetchHttpClient } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { OutboundGuard } from "../../platform/outbound/OutboundGuard.js"
import { ChatModel } from "../../runtime/models/ChatModel.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { configLayer } from "../support/UnitLayers.js"

const Live = Layer.unwrapEffect(
  Effect.map(ScriptedModel, (model) =>
    ChatModel.layer.pipe(
      Layer.provide(OutboundGuard.layer),
      Layer.provide(configLayer({ LLM_BASE_URL: model.baseUrl, LLM_MODELS: "m1", LLM_API_KEY: "sk-test", LLM_TIMEOUT_SECONDS: "1" })),
      Layer.provide(FetchHttpClient.layer)
    ))
).pipe(Layer.provideMerge(ScriptedModel.layer))

layer(Live, { excludeTestServices: true })("OpenAI-compatible chat model", (it) => {
  it.effect("streams text to onToken, returns usage, and sends JSON-schema and tool definitions", () =>
    Effect.gen(function*() {
      const chat = yield* ChatModel
      const scripted = yield* ScriptedModel
      scripted.setScript(() => ({ text: "one two three", usage: { prompt_tokens: 7, completion_tokens: 3 } }))
      const pieces: Array<string> = []
      const result = yield* chat.complete({
        model: "m1",
        messages: [{ role: "user", content: "hi" }],
        jsonSchema: { name: "answer", schema: { type: "object", properties: { a: { type: "string" } } } },
        tools: [{ name: "lookup", parameters: { type: "object" } }],
        onToken: (d) => Effect.sync(() => void pieces.push(d))
      })
      assert.strictEqual(result.text, "one two three")
      assert.deepStrictEqual(pieces, ["one ", "two ", "three"])
      assert.deepStrictEqual(result.usage, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 })
      const sent = scripted.requests.at(-1) as unknown as Record<string, unknown>
      assert.deepStrictEqual((sent.response_format as { type: string }).type, "json_schema")
      assert.strictEqual((sent.tools as Array<{ function: { name: string } }>)[0]?.function.name, "lookup")
      assert.isTrue(sent.stream)
    }))

  it.effect("collects streamed tool calls", () =>
    Effect.gen(function*() {
      const chat = yield* ChatModel
      const scripted = yield* ScriptedModel
      scripted.setScript(() => ({ text: "", chunks: [], toolCalls: [{ id: "call_1", name: "lookup", arguments: "{\"q\":\"x\"}" }] }))
      const result = yield* chat.complete({ model: "m1", messages: [{ role: "user", content: "find x" }] })
      assert.deepStrictEqual(result.toolCalls, [{ id: "call_1", name: "lookup", arguments: "{\"q\":\"x\"}" }])
      assert.strictEqual(result.finishReason, "tool_calls")
    }))

  it.effect("a call over the time limit fails (after its retries); a 4xx is not retried", () =>
    Effect.gen(function*() {
      const chat = yield* ChatModel
      const scripted = yield* ScriptedModel
      scripted.setScript(() => ({ text: "late", hold: new Promise<void>(() => undefined) }))
      const slow = yield* Effect.either(chat.complete({ model: "m1", messages: [{ role: "user", content: "x" }] }))
      assert.isTrue(Either.isLeft(slow) && slow.left.message.includes("timed out"))
      const before = scripted.requests.length
      scripted.setScript(() => ({ status: 401 }))
      const denied = yield* Effect.either(chat.complete({ model: "m1", messages: [{ role: "user", content: "x" }] }))
      assert.isTrue(Either.isLeft(denied) && denied.left.status === 401)
      assert.strictEqual(scripted.requests.length - before, 1)
    }), 30_000)
})

import { assert, describe, it } from "@effect/vitest"
import { withPresetDefaults } from "../../runtime/agents/Presets.js"
import { isStrictSchema } from "../../runtime/models/ChatModel.js"

describe("structured output", () => {
  it("strict mode only for schemas whose objects are closed and fully required", () => {
    const closed = { type: "object", additionalProperties: false, required: ["a"], properties: { a: { type: "string" } } }
    assert.isTrue(isStrictSchema(closed))
    assert.isFalse(isStrictSchema({ type: "object", required: ["a"], properties: { a: { type: "string" } } }))
    assert.isFalse(isStrictSchema({ ...closed, properties: { a: { type: "string" }, b: { type: "number" } } }))
    const nested = { ...closed, properties: { a: { type: "array", items: { type: "object", properties: { x: { type: "string" } } } } } }
    assert.isFalse(isStrictSchema(nested))
    assert.isTrue(isStrictSchema({ type: "string", enum: ["x", "y"] }))
  })
})

describe("presets", () => {
  it("a preset fills only what the step leaves out", () => {
    const base: { agent_type: string; preset: string; type_config?: Record<string, unknown> } = { agent_type: "extraction", preset: "search_query_planner" }
    const filled = withPresetDefaults({ ...base, system_prompt_template: "" })
    assert.include(filled.system_prompt_template, "search queries")
    assert.deepStrictEqual((filled.type_config?.schema as { required: Array<string> }).required, ["queries"])
    const own = withPresetDefaults({ ...base, system_prompt_template: "Mine", type_config: { schema: { type: "object" } } })
    assert.strictEqual(own.system_prompt_template, "Mine")
    assert.deepStrictEqual(own.type_config, { schema: { type: "object" } })
  })
})

import { Effect } from "effect"
import { http } from "./Http.js"

/** The platform provider the suites configure, so that agent steps can be published. */
export const LLM_ENV = { LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODELS: "test-model,other-model" }

export const respondNode = (id: string, prompt = "Answer politely.") => ({
  id,
  type: "agent",
  name: id,
  agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: prompt }
})

export const simpleDag = (prompt = "Answer politely.") => ({
  input_schema: { type: "object", properties: { message: { type: "string" } } },
  nodes: [respondNode("answer", `${prompt} {{workflow_input.message}}`)],
  edges: [],
  outputs: [{ name: "answer", value: "{{nodes.answer.output.text}}", exposed: true }]
})

export const createWorkflow = (token: string, body: Record<string, unknown> = {}) =>
  http("POST", "/api/v1/workflow/workflows", { token, body: { name: "Helper", ...body } }).pipe(
    Effect.flatMap((r) => (r.status === 201 ? Effect.succeed(r.body) : Effect.dieMessage(`create: ${r.status} ${r.text}`)))
  )

export const saveDag = (token: string, id: string, dag: unknown) => http("PATCH", `/api/v1/workflow/workflows/${id}`, { token, body: { dag_definition: dag } })

export const publish = (token: string, id: string) => http("POST", `/api/v1/workflow/workflows/${id}/publish`, { token })

export const getWorkflow = (token: string, id: string) => http("GET", `/api/v1/workflow/workflows/${id}`, { token }).pipe(Effect.map((r) => r.body))

export const versionsOf = (token: string, id: string) =>
  http("GET", `/api/v1/workflow/workflows/${id}/versions?page_size=100`, { token }).pipe(
    Effect.map((r) => r.body.items as Array<{ number: number; active: boolean; published_at?: string; name?: string }>)
  )

/** A one-step AI Employee that answers its required `question` input (the browser tests' usual one). */
export const answererDag = {
  input_schema: { type: "object", properties: { question: { type: "string", title: "Question" } }, required: ["question"] },
  nodes: [{
    id: "answer",
    type: "agent",
    name: "Answer",
    agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Answer {{workflow_input.question}}" }
  }],
  edges: []
}

/** Agent types and their versions (v0, v1, ...). A node pins the version it runs. */

export type AgentTypeStatus = "live" | "deprecated" | "pre-release" | "deleted" | "broken"

export const AgentTypes = [
  "intent_classification",
  "search_respond",
  "extraction",
  "rule_validation",
  "respond",
  "custom"
] as const
export type AgentType = typeof AgentTypes[number]

export interface AgentTypeVersion {
  readonly type: AgentType
  readonly version: string
  readonly status: AgentTypeStatus
}

export const agentTypeVersions: ReadonlyArray<AgentTypeVersion> = [
  { type: "intent_classification", version: "v0", status: "deprecated" },
  { type: "intent_classification", version: "v1", status: "live" },
  { type: "intent_classification", version: "v2", status: "pre-release" },
  { type: "search_respond", version: "v0", status: "deleted" },
  { type: "search_respond", version: "v1", status: "live" },
  { type: "extraction", version: "v1", status: "live" },
  { type: "rule_validation", version: "v0", status: "broken" },
  { type: "rule_validation", version: "v1", status: "live" },
  { type: "respond", version: "v1", status: "live" },
  { type: "custom", version: "v1", status: "live" }
]

export const lookupAgentType = (type: string, version: string): AgentTypeVersion | undefined =>
  agentTypeVersions.find((v) => v.type === type && v.version === version)

type JsonSchema = Record<string, unknown>

const inputsAny: JsonSchema = { type: "object", additionalProperties: true }

/** What each type reads and what its output looks like (00-decisions section 3). */
export const agentTypeContracts: Record<AgentType, {
  readonly description: string
  readonly typeConfigSchema: JsonSchema
  readonly inputSchema: JsonSchema
  readonly outputSchema: JsonSchema
}> = {
  intent_classification: {
    description: "Classifies the input into one of the configured intents, optionally gated by per-intent eligibility rules",
    typeConfigSchema: {
      type: "object",
      required: ["intents"],
      properties: {
        intents: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            required: ["name"],
            properties: {
              name: { type: "string" },
              description: { type: "string" },
              eligibility: {
                type: "array",
                items: { type: "object", required: ["ref", "op"], properties: { ref: { type: "string" }, op: { type: "string" } } }
              }
            }
          }
        }
      }
    },
    inputSchema: inputsAny,
    outputSchema: {
      type: "object",
      required: ["intent", "confidence", "eligible"],
      properties: { intent: { type: "string" }, confidence: { type: "number" }, eligible: { type: "boolean" } }
    }
  },
  search_respond: {
    description: "Retrieves from knowledge bases and answers with citations",
    typeConfigSchema: {
      type: "object",
      properties: {
        top_k: { type: "integer", minimum: 1, maximum: 50 },
        min_score: { type: "number", minimum: 0, maximum: 1 },
        answer: { type: "boolean", description: "false returns the passages without a model answer" }
      }
    },
    inputSchema: inputsAny,
    outputSchema: {
      type: "object",
      required: ["text", "citations"],
      properties: {
        text: { type: "string" },
        citations: {
          type: "array",
          items: {
            type: "object",
            properties: {
              document_id: { type: "string" },
              chunk_id: { type: "string" },
              title: { type: "string" },
              snippet: { type: "string" },
              score: { type: "number" }
            }
          }
        }
      }
    }
  },
  extraction: {
    description: "Extracts structured fields against type_config.schema; a reply that breaks it is retried once",
    typeConfigSchema: { type: "object", required: ["schema"], properties: { schema: { type: "object" } } },
    inputSchema: inputsAny,
    outputSchema: { description: "the object described by type_config.schema" }
  },
  rule_validation: {
    description: "Validates the input against rules, per rule, with an optional Excel report",
    typeConfigSchema: {
      type: "object",
      required: ["rules"],
      properties: {
        rules: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            required: ["id", "description"],
            properties: {
              id: { type: "string", minLength: 1 },
              description: { type: "string" },
              condition: { type: "object", required: ["ref", "op"], properties: { ref: { type: "string" }, op: { type: "string" } } }
            }
          }
        },
        report: { type: "boolean", description: "store an Excel report; its id is the output's report_file_id" },
        report_title: { type: "string" }
      }
    },
    inputSchema: inputsAny,
    outputSchema: {
      type: "object",
      required: ["passed", "results"],
      properties: { passed: { type: "boolean" }, results: { type: "array" }, report_file_id: { type: "string" } }
    }
  },
  respond: {
    description: "Responds directly from its instructions",
    typeConfigSchema: { type: "object" },
    inputSchema: inputsAny,
    outputSchema: { type: "object", required: ["text"], properties: { text: { type: "string" } } }
  },
  custom: {
    description: "A builder-defined agent: a tool-calling loop over action_ids and MCP tools",
    typeConfigSchema: { type: "object", properties: { max_iterations: { type: "integer", minimum: 1, maximum: 20 } } },
    inputSchema: inputsAny,
    outputSchema: { description: "{text} or the object of agent_config.output_schema" }
  }
}

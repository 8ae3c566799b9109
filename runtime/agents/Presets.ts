import type { AgentType } from "./Catalog.js"

/**
 * Presets: named starting configurations a builder picks for a new step. A node or definition
 * names one in `agent_config.preset`; its defaults fill what the step leaves out. Presets that
 * are no longer offered are refused on new steps but keep running where they already are.
 */
export interface AgentPreset {
  readonly id: string
  readonly name: string
  readonly agent_type: AgentType
  readonly type_version: string
  readonly offered: boolean
  readonly description: string
  readonly system_prompt_template?: string
  readonly type_config?: Record<string, unknown>
}

export const agentPresets: ReadonlyArray<AgentPreset> = [
  {
    id: "classify_intent",
    name: "Classify Intent",
    agent_type: "intent_classification",
    type_version: "v1",
    offered: true,
    description: "Routes the input to one of your intents"
  },
  {
    id: "answer_with_citations",
    name: "Answer with Citations",
    agent_type: "search_respond",
    type_version: "v1",
    offered: true,
    description: "Answers from the attached knowledge bases and cites them",
    system_prompt_template: "Answer the question from the sources and cite each claim."
  },
  {
    id: "extract_fields",
    name: "Extract Fields",
    agent_type: "extraction",
    type_version: "v1",
    offered: true,
    description: "Fills a JSON schema from the input"
  },
  {
    id: "validate_rules",
    name: "Validate Rules",
    agent_type: "rule_validation",
    type_version: "v1",
    offered: true,
    description: "Checks the input rule by rule, with an optional Excel report"
  },
  { id: "custom_agent", name: "Custom Agent", agent_type: "custom", type_version: "v1", offered: true, description: "Your instructions and tools" },
  {
    id: "search_and_respond",
    name: "Search & Respond",
    agent_type: "search_respond",
    type_version: "v1",
    offered: false,
    description: "Retired: use Answer with Citations",
    system_prompt_template: "Answer the question using the knowledge base and cite your sources."
  },
  {
    id: "knowledge_search",
    name: "Knowledge Search",
    agent_type: "search_respond",
    type_version: "v1",
    offered: false,
    description: "Retired: returns matching passages without an answer",
    type_config: { answer: false }
  },
  {
    id: "search_query_planner",
    name: "Search Query Planner",
    agent_type: "extraction",
    type_version: "v1",
    offered: false,
    description: "Retired: turns a question into search queries",
    system_prompt_template: "Write up to five short search queries that together find what the question needs.",
    type_config: {
      schema: {
        type: "object",
        additionalProperties: false,
        required: ["queries"],
        properties: { queries: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 5 } }
      }
    }
  },
  { id: "respond", name: "Respond", agent_type: "respond", type_version: "v1", offered: false, description: "Retired: use the respond type directly" }
]

export const lookupPreset = (id: string): AgentPreset | undefined => agentPresets.find((p) => p.id === id)

/** What is wrong with naming this preset on a step, if anything; `existing` steps may keep retired ones. */
export const presetProblem = (
  presetId: string,
  agentType: string,
  existing: boolean
): { readonly code: "AGENT_PRESET_UNKNOWN" | "AGENT_PRESET_MISMATCH" | "AGENT_PRESET_RETIRED"; readonly message: string } | undefined => {
  const preset = lookupPreset(presetId)
  if (preset === undefined) return { code: "AGENT_PRESET_UNKNOWN", message: `Unknown agent preset '${presetId}'` }
  if (preset.agent_type !== agentType) {
    return { code: "AGENT_PRESET_MISMATCH", message: `Preset '${presetId}' is a ${preset.agent_type} preset, not ${agentType}` }
  }
  if (!preset.offered && !existing) {
    return { code: "AGENT_PRESET_RETIRED", message: `The ${preset.name} preset is no longer offered for new steps` }
  }
  return undefined
}

/** A step's configuration with its preset's defaults filled in. */
export const withPresetDefaults = <
  C extends { readonly preset?: string | undefined; readonly system_prompt_template: string; readonly type_config?: Record<string, unknown> | undefined }
>(
  config: C
): C => {
  const preset = config.preset === undefined ? undefined : lookupPreset(config.preset)
  if (preset === undefined) return config
  return {
    ...config,
    system_prompt_template: config.system_prompt_template.trim() === "" ? preset.system_prompt_template ?? "" : config.system_prompt_template,
    type_config: { ...preset.type_config, ...config.type_config }
  }
}

/** `<node id>:<preset>` of a DAG's agent steps that name a preset no longer offered. */
export const retiredPresetSteps = (dag: unknown): ReadonlyArray<string> => {
  const nodes = dag !== null && typeof dag === "object" && Array.isArray((dag as { nodes?: unknown }).nodes)
    ? (dag as { nodes: ReadonlyArray<unknown> }).nodes
    : []
  return nodes.flatMap((n) => {
    const node = n as { id?: unknown; agent_config?: { preset?: unknown } } | null
    const preset = node?.agent_config?.preset
    return typeof node?.id === "string" && typeof preset === "string" && lookupPreset(preset)?.offered === false
      ? [`${node.id}:${preset}`]
      : []
  })
}

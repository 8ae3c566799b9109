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

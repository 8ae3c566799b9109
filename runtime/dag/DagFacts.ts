import type { AgentTypeIssue, NodeEnvelope } from "../../schemas/Dag.js"
import type { Role } from "../../schemas/Roles.js"
import type { Graph } from "./Graph.js"

/** What the validator needs to know about the world, resolved beforehand so that it stays pure. */
export interface DagFacts {
  readonly llmAvailable: boolean
  readonly memberEmails: ReadonlySet<string>
  readonly resolvableRoles: ReadonlySet<Role>
  readonly groupIds: ReadonlySet<string>
  /** Groups that have a ticket queue (a live_agent_transfer target needs one). */
  readonly queueGroupIds: ReadonlySet<string>
  readonly mcpServers: ReadonlyMap<string, "approved" | "pending">
  readonly tools: ReadonlyMap<string, { readonly configSchema?: unknown }>
  /** Published AI Employees of the tenant that a call_aie node may call. */
  readonly callableWorkflows: ReadonlySet<string>
  readonly selfWorkflowId: string
  /** The AI Employee's interaction_type (a schedule node needs `dashboard`). */
  readonly interactionType: string
  /** `<node id>:<preset>` of steps that may keep a retired preset. */
  readonly legacySteps: ReadonlySet<string>
}

/** What a node type's publish check sees beside its own node. */
export interface NodeCheckContext {
  readonly facts: DagFacts
  readonly graph: Graph
  /** The DAG's well-formed nodes by id. */
  readonly nodes: ReadonlyMap<string, NodeEnvelope>
  /** Whether a node's type reads the run context again when it runs (after a park, say). */
  readonly rereadsContext: (nodeId: string) => boolean
  /** Records an agent-type version publish refuses (a refused publish lists them). */
  readonly agentTypeIssue: (issue: AgentTypeIssue) => void
}

/** What a node refers to outside the DAG, resolved into the facts before the checks run. */
export interface NodeRefs {
  readonly groupIds?: ReadonlyArray<string>
  readonly workflowIds?: ReadonlyArray<string>
  readonly mcpServerIds?: ReadonlyArray<string>
  readonly toolIds?: ReadonlyArray<string>
}

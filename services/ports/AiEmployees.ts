import { Context, type Effect, type Option } from "effect"
import type { NotFound } from "../../schemas/Errors.js"
import type { TenantId, WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import type { InteractionType, WorkflowConfig } from "../../schemas/Workflow.js"

/** An AI Employee as other services see it. */
export interface AiEmployee {
  readonly id: WorkflowId
  readonly name: string
  readonly description: string | null
  readonly icon: string | null
  readonly interaction_type: InteractionType
  readonly active_version: number | null
  /** The newest saved version (the working draft, or the published one when nothing changed since). */
  readonly latest_version: number
  /** With the defaults applied. */
  readonly config: WorkflowConfig
  /** `<node id>:<preset>` of steps that may keep a retired preset. */
  readonly legacy_steps: ReadonlyArray<string>
  /** The knowledge bases attached to it. */
  readonly knowledge_base_ids: ReadonlyArray<string>
}

/** AI Employee lookups, implemented by the workflow service. */
export class AiEmployees extends Context.Tag("ports/AiEmployees")<AiEmployees, {
  /** One the caller can see (its tenant's, not archived); 404 otherwise. */
  readonly visible: (principal: Principal, id: WorkflowId) => Effect.Effect<AiEmployee, NotFound>
  /** The input schema of one of its versions, if it has one. */
  readonly inputSchema: (principal: Principal, id: WorkflowId, version: number) => Effect.Effect<unknown>
  /** The configuration (defaults applied) of any of the tenant's AI Employees, for work done on no one's behalf. */
  readonly configOf: (tenantId: TenantId, id: WorkflowId) => Effect.Effect<Option.Option<WorkflowConfig>>
}>() {}

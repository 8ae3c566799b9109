import { Context, Effect, Layer } from "effect"
import { ModelRegistry } from "../../runtime/models/ModelRegistry.js"
import { ToolRegistry } from "../../runtime/tools/Tools.js"
import type { TenantId } from "../../schemas/Ids.js"
import type { WorkflowConfig } from "../../schemas/Workflow.js"

/**
 * What publish checks ask of other services. Each is an interface the owning service implements
 * (MCP servers with integrations, tools through the runtime's tool registry, models through the
 * model registry, knowledge bases with ingestion).
 */

export class McpRegistry extends Context.Tag("McpRegistry")<McpRegistry, {
  readonly statuses: (
    tenantId: TenantId,
    ids: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, "approved" | "pending">>
}>() {
}

export class ToolCatalog extends Context.Tag("ToolCatalog")<ToolCatalog, {
  readonly lookup: (
    tenantId: TenantId,
    actionIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, { readonly configSchema?: unknown }>>
}>() {
  /** The tools agents can call (built-ins today, integration functions and MCP tools as they register). */
  static readonly layer = Layer.effect(
    ToolCatalog,
    Effect.map(ToolRegistry, (registry) => ({ lookup: (tenantId: TenantId, ids: ReadonlyArray<string>) => registry.actions(tenantId, ids) }))
  )
}

export interface KnowledgeBaseSnapshotEntry {
  readonly knowledge_base_id: string
  readonly documents: ReadonlyArray<{ readonly document_id: string; readonly content_hash: string }>
}

export class KnowledgeSnapshots extends Context.Tag("KnowledgeSnapshots")<KnowledgeSnapshots, {
  /** The attached knowledge bases' document sets (ids and content hashes) at publish. */
  readonly capture: (tenantId: TenantId, kbIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<KnowledgeBaseSnapshotEntry>>
  /** Rolls knowledge-base content back to a snapshot (revert). */
  readonly restore: (tenantId: TenantId, snapshot: ReadonlyArray<KnowledgeBaseSnapshotEntry>) => Effect.Effect<"ok" | "failed">
}>() {
}

export class ModelAvailability extends Context.Tag("ModelAvailability")<ModelAvailability, {
  /** Whether an AI Employee with this configuration has a completion model to call. */
  readonly hasCompletionModel: (tenantId: TenantId, config: WorkflowConfig) => Effect.Effect<boolean>
}>() {
  /** Reads the model registry: the same answer the runtime gets when it picks a model. */
  static readonly layer = Layer.effect(
    ModelAvailability,
    Effect.map(ModelRegistry, (registry) => ({
      hasCompletionModel: (tenantId: TenantId, wf: WorkflowConfig) => Effect.map(registry.options(tenantId, wf), (options) => options.length > 0)
    }))
  )
}

/** Knowledge snapshots come from the ingestion service, the MCP registry from integrations (composed in the gateway). */
export const RegistriesLive = Layer.mergeAll(ToolCatalog.layer, ModelAvailability.layer)

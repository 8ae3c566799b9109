import { Context, Effect, Layer } from "effect"
import type { TenantId } from "../../schemas/Ids.js"
import type { WorkflowConfig } from "../../schemas/Workflow.js"
import { ModelRegistry } from "../../runtime/models/ModelRegistry.js"

/**
 * What publish checks ask of other services. Each is an interface the owning service implements
 * (MCP servers and the tool catalog with integrations, models with the agents issue, knowledge
 * bases with ingestion); the layers here answer for a platform that has none of them yet.
 */

export class McpRegistry extends Context.Tag("McpRegistry")<McpRegistry, {
  readonly statuses: (
    tenantId: TenantId,
    ids: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, "approved" | "pending">>
}>() {
  /** No MCP server is registered yet: every reference is MCP_SERVER_NOT_FOUND. */
  static readonly none = Layer.succeed(McpRegistry, { statuses: () => Effect.succeed(new Map()) })
}

export class ToolCatalog extends Context.Tag("ToolCatalog")<ToolCatalog, {
  readonly lookup: (
    tenantId: TenantId,
    actionIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, { readonly configSchema?: unknown }>>
}>() {
  /** No integration is installed yet: every action id is TOOL_NOT_FOUND. */
  static readonly none = Layer.succeed(ToolCatalog, { lookup: () => Effect.succeed(new Map()) })
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
      hasCompletionModel: (tenantId: TenantId, wf: WorkflowConfig) =>
        Effect.map(registry.options(tenantId, wf), (options) => options.length > 0)
    }))
  )
}

/** Knowledge snapshots come from the ingestion service (composed in the gateway). */
export const RegistriesLive = Layer.mergeAll(McpRegistry.none, ToolCatalog.none, ModelAvailability.layer)

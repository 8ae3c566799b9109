import { Context, Effect, Layer } from "effect"
import { AppConfig, type Tier } from "../../platform/Config.js"
import type { WorkflowConfig } from "../../schemas/Workflow.js"
import type { ProviderEndpoint } from "./ChatModel.js"

export type { Tier }

export interface ModelOption {
  /** `<provider>/<model>` for a tenant provider, the bare model name for the platform provider. */
  readonly id: string
  readonly model: string
  /** undefined: the platform provider of LLM_BASE_URL. */
  readonly provider: ProviderEndpoint | undefined
  readonly cost: Tier
  readonly speed: Tier
}

export interface TenantProvider {
  readonly name: string
  readonly baseUrl: string
  readonly apiKey: string | undefined
  readonly models: ReadonlyArray<{ readonly id: string; readonly cost: Tier; readonly speed: Tier }>
}

/** The tenant's own providers (decrypted), for the registry; the workflow service implements it. */
export class ProviderDirectory extends Context.Tag("ProviderDirectory")<ProviderDirectory, {
  readonly enabled: (tenantId: string) => Effect.Effect<ReadonlyArray<TenantProvider>>
}>() {}

const rank: Record<WorkflowConfig["optimization_priority"], (m: ModelOption) => number> = {
  CHEAPEST: (m) => -m.cost,
  FASTEST: (m) => m.speed,
  MOST_ACCURATE: (m) => m.cost,
  BALANCED: (m) => m.speed - m.cost,
  AUTO: () => 0
}

/**
 * Which models an AI Employee may call (`llm_mode`, `selected_model_ids`, `custom_model_config`;
 * the tenant's own providers instead of the platform's when `use_own_providers` is on), and the
 * one picked for a call by `optimization_priority`.
 */
export class ModelRegistry extends Context.Tag("ModelRegistry")<ModelRegistry, {
  readonly options: (tenantId: string, config: WorkflowConfig) => Effect.Effect<ReadonlyArray<ModelOption>>
  readonly choose: (tenantId: string, config: WorkflowConfig, requested: string | undefined) => Effect.Effect<ModelOption | undefined>
}>() {
  static readonly layer = Layer.effect(
    ModelRegistry,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const directory = yield* ProviderDirectory
      const platform: ReadonlyArray<ModelOption> = config.llmBaseUrl._tag === "Some"
        ? config.llmModels.map((m) => ({ id: m.id, model: m.id, provider: undefined, cost: m.cost, speed: m.speed }))
        : []

      const options = (tenantId: string, wf: WorkflowConfig) =>
        Effect.gen(function*() {
          const all: ReadonlyArray<ModelOption> = wf.use_own_providers
            ? (yield* directory.enabled(tenantId)).flatMap((p) =>
              p.models.map((m) => ({
                id: `${p.name}/${m.id}`,
                model: m.id,
                provider: { baseUrl: p.baseUrl, apiKey: p.apiKey },
                cost: m.cost,
                speed: m.speed
              }))
            )
            : platform
          switch (wf.llm_mode) {
            case "ALL":
              return all
            case "SELECTED":
              return all.filter((m) => wf.selected_model_ids.includes(m.id))
            case "CUSTOM":
              return all.filter((m) => m.id === wf.custom_model_config.model)
          }
        })

      const choose = (tenantId: string, wf: WorkflowConfig, requested: string | undefined) =>
        Effect.map(options(tenantId, wf), (allowed) => {
          const exact = allowed.find((m) => m.id === requested)
          if (exact !== undefined) return exact
          const score = rank[wf.optimization_priority]
          return allowed.reduce<ModelOption | undefined>((best, m) => (best === undefined || score(m) > score(best) ? m : best), undefined)
        })

      return { options, choose }
    })
  )
}

import type { WorkflowConfig } from "../../schemas/Workflow.js"

/**
 * The model for one call within what the AI Employee allows: the node's own `llm_config.model`
 * when allowed, else the first allowed model (cost and speed ranking arrives with the model
 * registry).
 */
export const chooseModel = (
  config: WorkflowConfig,
  offered: ReadonlyArray<string>,
  requested: string | undefined
): string | undefined => {
  const allowed = config.llm_mode === "SELECTED"
    ? offered.filter((m) => config.selected_model_ids.includes(m))
    : config.llm_mode === "CUSTOM"
    ? offered.filter((m) => m === config.custom_model_config.model)
    : offered
  if (requested !== undefined && allowed.includes(requested)) return requested
  return allowed[0]
}

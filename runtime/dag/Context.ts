/** The run context that templates and conditions read. */
export interface RunContext {
  readonly workflow_input: Record<string, unknown>
  readonly nodes: Record<string, { readonly output?: unknown; readonly hitl?: unknown }>
  readonly chat?: { readonly message?: string; readonly history?: ReadonlyArray<unknown> } | undefined
  readonly run: { readonly id: string; readonly trigger_type: string }
}

/** The value at a dotted path, or undefined when any step is missing. */
export const resolvePath = (context: RunContext, path: string): unknown => {
  let current: unknown = context
  for (const part of path.split(".")) {
    if (current === null || current === undefined) return undefined
    if (Array.isArray(current) && /^\d+$/.test(part)) current = current[Number(part)]
    else if (typeof current === "object") current = (current as Record<string, unknown>)[part]
    else return undefined
  }
  return current
}

import { resolvePath, type RunContext } from "./Context.js"

const WHOLE = /^\s*\{\{\s*([^{}]+?)\s*\}\}\s*$/
const ANY = /\{\{\s*([^{}]+?)\s*\}\}/g

const asText = (value: unknown) => value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value)

/**
 * Resolves `{{path}}` in a string. A string that is exactly one template takes the value itself
 * (absent when missing); inside text a missing path is the empty string.
 */
export const renderString = (template: string, context: RunContext): unknown => {
  const whole = WHOLE.exec(template)
  if (whole !== null) return resolvePath(context, whole[1])
  return template.replace(ANY, (_m, path: string) => asText(resolvePath(context, path)))
}

/** Renders every string inside a value; keys whose value resolves to nothing are dropped. */
export const renderDeep = (value: unknown, context: RunContext): unknown => {
  if (typeof value === "string") return renderString(value, context)
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, context)).filter((v) => v !== undefined)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      const rendered = renderDeep(v, context)
      if (rendered !== undefined) out[k] = rendered
    }
    return out
  }
  return value
}

/** Renders text for a prompt: always a string. */
export const renderText = (template: string, context: RunContext): string => asText(renderString(template, context))

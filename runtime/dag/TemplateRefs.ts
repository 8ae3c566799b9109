/** `{{path}}` references inside any string of a value, with the path trimmed. */
export const templateRefs = (value: unknown): ReadonlyArray<string> => {
  const refs: Array<string> = []
  const visit = (v: unknown): void => {
    if (typeof v === "string") {
      for (const match of v.matchAll(/\{\{\s*([^{}]+?)\s*\}\}/g)) refs.push(match[1])
    } else if (Array.isArray(v)) {
      v.forEach(visit)
    } else if (v !== null && typeof v === "object") {
      Object.values(v).forEach(visit)
    }
  }
  visit(value)
  return refs
}

export type RefRoot =
  | { readonly kind: "input"; readonly name: string }
  | { readonly kind: "node"; readonly nodeId: string; readonly part: "output" | "hitl" }
  | { readonly kind: "chat" }
  | { readonly kind: "run" }
  | { readonly kind: "invalid" }

/** What a path points into: workflow_input.<name>, nodes.<id>.output|hitl..., chat.*, run.id / run.trigger_type. */
export const classifyRef = (path: string): RefRoot => {
  const parts = path.split(".")
  switch (parts[0]) {
    case "workflow_input":
      return parts.length >= 2 && parts[1] !== "" ? { kind: "input", name: parts[1] } : { kind: "invalid" }
    case "nodes":
      return parts.length >= 3 && (parts[2] === "output" || parts[2] === "hitl")
        ? { kind: "node", nodeId: parts[1], part: parts[2] }
        : { kind: "invalid" }
    case "chat":
      return parts[1] === "message" || parts[1] === "history" ? { kind: "chat" } : { kind: "invalid" }
    case "run":
      return parts[1] === "id" || parts[1] === "trigger_type" ? { kind: "run" } : { kind: "invalid" }
    default:
      return { kind: "invalid" }
  }
}

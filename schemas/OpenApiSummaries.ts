type Json = Record<string, unknown>

const METHODS = new Set(["get", "put", "post", "patch", "delete", "head", "options"])

const words = (camel: string) => camel.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[-_]/g, " ").toLowerCase()
const singular = (word: string) =>
  word.endsWith("ies")
    ? `${word.slice(0, -3)}y`
    : word.endsWith("sses")
    ? word.slice(0, -2)
    : word.endsWith("s") && !word.endsWith("ss")
    ? word.slice(0, -1)
    : word
const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/**
 * A summary for an operation without one, from its name and path: `docgen.removeSlide` is
 * "Remove slide"; a one-word name takes the resource from the path (`aiEmployees.get` on
 * `/ai-employees/{id}` is "Get ai employee", `runs.cancel` on `/runs/{id}/cancel` "Cancel run").
 */
const VERBS = new Set([
  "get",
  "list",
  "create",
  "update",
  "delete",
  "remove",
  "put",
  "patch",
  "add",
  "run",
  "cancel",
  "clone",
  "archive",
  "restore",
  "publish",
  "revert",
  "promote",
  "enable",
  "disable",
  "activate",
  "deactivate",
  "approve",
  "reject",
  "claim",
  "respond",
  "retry",
  "test",
  "execute",
  "search",
  "upload",
  "download",
  "replace",
  "move",
  "assign",
  "close",
  "reopen",
  "stream",
  "login",
  "logout",
  "refresh",
  "compare",
  "render",
  "generate",
  "import",
  "export",
  "validate",
  "invite",
  "rename",
  "submit",
  "begin"
])
const BY_METHOD: Record<string, string> = { get: "Get", post: "Post", put: "Set", patch: "Update", delete: "Delete" }

const summaryOf = (operationId: string, method: string, path: string) => {
  const name = operationId.split(".").at(-1) ?? operationId
  const text = words(name)
  if (text.includes(" ")) return sentence(text)
  const segments = path.split("/").filter((s) => s !== "" && s !== "api" && s !== "v1")
  const literals = segments.filter((s) => !s.startsWith("{"))
  const last = literals.at(-1) ?? ""
  if (!VERBS.has(text)) {
    // A noun (`docgen.versions`): what a GET of it returns, of the resource it hangs under.
    const owner = words(last) === text ? literals.at(-2) : undefined
    return sentence(`${BY_METHOD[method] ?? sentence(method)} ${text}${owner !== undefined ? ` of ${singular(words(owner))}` : ""}`)
  }
  const noun = words(last) === text ? literals.at(-2) ?? "" : last
  const item = text === "list" || text === "search" ? words(noun) : singular(words(noun))
  return sentence(item === "" || item === text ? text : `${text} ${item}`)
}

const tagName = (tag: string) => (tag === "System" ? tag : sentence(words(tag)))

const commonPrefix = (paths: ReadonlyArray<string>) => {
  if (paths.length === 0) return "/"
  const split = paths.map((p) => p.split("/"))
  const first = split[0]
  let n = 0
  while (n < first.length && !first[n].startsWith("{") && split.every((s) => s[n] === first[n])) n += 1
  return first.slice(0, n).join("/") || "/"
}

/**
 * Every operation gets a summary (its own, or one made from its name and path) and readable tags
 * (a group's name in words), and every tag a description naming where its operations live.
 */
export const describeOperations = (spec: Json): Json => {
  const pathsByTag = new Map<string, Array<string>>()
  for (const [path, item] of Object.entries((spec.paths as Record<string, Json> | undefined) ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method) || operation === null || typeof operation !== "object") continue
      const op = operation as Json
      if (typeof op.summary !== "string" || op.summary === "") op.summary = summaryOf(String(op.operationId ?? method), method, path)
      const tags = ((op.tags as ReadonlyArray<string> | undefined) ?? []).map(tagName)
      op.tags = tags
      for (const tag of tags) pathsByTag.set(tag, [...(pathsByTag.get(tag) ?? []), path])
    }
  }
  const described = new Map(((spec.tags as ReadonlyArray<Json> | undefined) ?? []).map((t) => [tagName(String(t.name)), t]))
  const tags = [...pathsByTag.entries()].map(([name, paths]) => ({
    ...described.get(name),
    name,
    description: typeof described.get(name)?.description === "string"
      ? described.get(name)!.description
      : `${name}: operations under ${commonPrefix(paths)}`
  }))
  return { ...spec, tags }
}

import { isRecord } from "../../schemas/Records.js"

/** The value a local JSON pointer (`#/components/schemas/A`) names in `doc`, or undefined. */
export const resolvePointer = (doc: unknown, ref: string): unknown => {
  if (!ref.startsWith("#")) return undefined
  let node: unknown = doc
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~")
    if (Array.isArray(node)) node = node[Number(key)]
    else if (isRecord(node)) node = node[key]
    else return undefined
  }
  return node
}

/**
 * About how many bytes of JSON `doc` would be with its local `$ref`s replaced by what they point
 * at, computed without building it: each object's size is counted once and shared by every
 * reference to it, so the count takes time in proportion to the document, not to its expansion.
 * A `$ref` back into its own expansion (circular) counts as the `$ref` itself. Counting stops
 * once it passes `limit`.
 */
export const expandedSize = (doc: unknown, limit: number): number => {
  const sizes = new Map<object, number>()
  const open = new Set<object>()
  const sizeOf = (node: unknown): number => {
    if (typeof node === "string") return node.length + 2
    if (node === null || typeof node !== "object") return 8
    if (!Array.isArray(node) && typeof (node as { $ref?: unknown }).$ref === "string") {
      const ref = (node as { $ref: string }).$ref
      const target = resolvePointer(doc, ref)
      if (target === null || typeof target !== "object" || open.has(target) || open.has(node)) return ref.length + 10
      open.add(node)
      const size = sizeOf(target)
      open.delete(node)
      return size
    }
    const known = sizes.get(node)
    if (known !== undefined) return known
    if (open.has(node)) return 8
    open.add(node)
    let total = 2
    for (const [key, value] of Object.entries(node)) {
      total += key.length + 4 + sizeOf(value)
      if (total > limit) break
    }
    open.delete(node)
    sizes.set(node, total)
    return total
  }
  return sizeOf(doc)
}

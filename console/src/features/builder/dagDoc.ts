/**
 * The DAG as the canvas edits it: the saved `dag_definition` read leniently (an unfinished DAG
 * still opens), edited by pure functions, written back with every field it had (`outputs` and
 * anything this console does not know are kept as they were).
 */
export type Json = Record<string, unknown>

export interface DocNode {
  readonly id: string
  readonly type: string
  readonly name?: string
  readonly position?: { readonly x: number; readonly y: number }
  readonly [field: string]: unknown
}

export interface DocEdge {
  readonly from: string
  readonly to: string
  readonly condition?: unknown
}

export interface Doc {
  readonly input_schema: Json
  readonly nodes: ReadonlyArray<DocNode>
  readonly edges: ReadonlyArray<DocEdge>
  /** Every other field of the DAG (`outputs`, ...), written back unchanged. */
  readonly rest: Json
}

export const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const EMPTY_INPUT: Json = { type: "object", properties: {}, required: [] }

export const docOf = (dag: Readonly<Json>): Doc => {
  const { input_schema, nodes, edges, ...rest } = dag
  return {
    input_schema: isRecord(input_schema) ? input_schema : EMPTY_INPUT,
    nodes: (Array.isArray(nodes) ? nodes : []).flatMap((n: unknown) =>
      isRecord(n) && typeof n.id === "string" && typeof n.type === "string" ? [n as DocNode] : []
    ),
    edges: (Array.isArray(edges) ? edges : []).flatMap((e: unknown) =>
      isRecord(e) && typeof e.from === "string" && typeof e.to === "string" ? [e as unknown as DocEdge] : []
    ),
    rest
  }
}

export const dagOf = (doc: Doc): Json => ({ ...doc.rest, input_schema: doc.input_schema, nodes: doc.nodes, edges: doc.edges })

/** The same DAG whatever order its keys were written in: what "unsaved changes" compares. */
export const sameDag = (a: Doc, b: Doc) => stable(dagOf(a)) === stable(dagOf(b))

const stable = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(stable).join(",")}]`
    : isRecord(value)
    ? `{${Object.keys(value).sort().filter((k) => value[k] !== undefined).map((k) => `${JSON.stringify(k)}:${stable(value[k])}`).join(",")}}`
    : JSON.stringify(value) ?? "null"

/** A node id not yet used: `<base>`, then `<base>_2`, `<base>_3`... */
export const freshId = (doc: Doc, base: string) => {
  const taken = new Set(doc.nodes.map((n) => n.id))
  const clean = base.replace(/[^A-Za-z0-9_-]/g, "_").replace(/^([^A-Za-z_])/, "_$1").slice(0, 56) || "node"
  if (!taken.has(clean)) return clean
  for (let i = 2;; i++) if (!taken.has(`${clean}_${i}`)) return `${clean}_${i}`
}

export const addNode = (doc: Doc, node: DocNode): Doc => ({ ...doc, nodes: [...doc.nodes, node] })

export const updateNode = (doc: Doc, id: string, next: DocNode): Doc => ({
  ...doc,
  nodes: doc.nodes.map((n) => (n.id === id ? next : n)),
  // A renamed id takes its edges along.
  edges: next.id === id ? doc.edges : doc.edges.map((e) => ({ ...e, from: e.from === id ? next.id : e.from, to: e.to === id ? next.id : e.to }))
})

export const removeNodes = (doc: Doc, ids: ReadonlySet<string>): Doc => ({
  ...doc,
  nodes: doc.nodes.filter((n) => !ids.has(n.id)),
  edges: doc.edges.filter((e) => !ids.has(e.from) && !ids.has(e.to))
})

/** Whether `to` already reaches `from` (an edge from -> to would close a cycle). */
const reaches = (doc: Doc, start: string, target: string) => {
  const seen = new Set<string>()
  const stack = [start]
  while (stack.length > 0) {
    const at = stack.pop()!
    if (at === target) return true
    if (seen.has(at)) continue
    seen.add(at)
    for (const e of doc.edges) if (e.from === at) stack.push(e.to)
  }
  return false
}

/** A new edge; none when it exists already, joins a node to itself, or would close a cycle. */
export const connect = (doc: Doc, from: string, to: string): Doc | undefined =>
  from === to || doc.edges.some((e) => e.from === from && e.to === to) || reaches(doc, to, from)
    ? undefined
    : { ...doc, edges: [...doc.edges, { from, to }] }

export const removeEdges = (doc: Doc, keys: ReadonlySet<string>): Doc => ({ ...doc, edges: doc.edges.filter((e, i) => !keys.has(edgeKey(e, i))) })

export const edgeKey = (e: DocEdge, index: number) => `${e.from}->${e.to}#${index}`

export const moveNodes = (doc: Doc, at: ReadonlyMap<string, { readonly x: number; readonly y: number }>): Doc => ({
  ...doc,
  nodes: doc.nodes.map((n) => {
    const p = at.get(n.id)
    return p === undefined ? n : { ...n, position: { x: Math.round(p.x), y: Math.round(p.y) } }
  })
})

/** Copied nodes pasted with fresh ids (and the edges among them), offset so they do not cover the originals. */
export const paste = (doc: Doc, nodes: ReadonlyArray<DocNode>, edges: ReadonlyArray<DocEdge>): { readonly doc: Doc; readonly ids: ReadonlyArray<string> } => {
  let next = doc
  const renamed = new Map<string, string>()
  for (const n of nodes) {
    const id = freshId(next, n.id)
    renamed.set(n.id, id)
    next = addNode(next, { ...n, id, position: { x: (n.position?.x ?? 0) + 40, y: (n.position?.y ?? 0) + 40 } })
  }
  const inner = edges.filter((e) => renamed.has(e.from) && renamed.has(e.to)).map((e) => ({ ...e, from: renamed.get(e.from)!, to: renamed.get(e.to)! }))
  return { doc: { ...next, edges: [...next.edges, ...inner] }, ids: [...renamed.values()] }
}

/** The nodes upstream of `id` (every node it can be reached from): what its templates may name. */
export const upstreamOf = (doc: Doc, id: string): ReadonlyArray<DocNode> => {
  const found = new Set<string>()
  const stack = [id]
  while (stack.length > 0) {
    const at = stack.pop()!
    for (const e of doc.edges) {
      if (e.to === at && !found.has(e.from)) {
        found.add(e.from)
        stack.push(e.from)
      }
    }
  }
  return doc.nodes.filter((n) => found.has(n.id))
}

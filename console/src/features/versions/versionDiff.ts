import { type Doc, type DocEdge, type DocNode, isRecord } from "../builder/dagDoc.js"

export interface NodeChange {
  readonly id: string
  readonly kind: "added" | "removed" | "changed"
  readonly name: string
  /** For a changed node: the fields that differ (`agent_config.system_prompt_template`), with both values. */
  readonly fields: ReadonlyArray<FieldChange>
}

export interface FieldChange {
  readonly path: string
  readonly before: unknown
  readonly after: unknown
}

const at = (value: unknown, path: string): unknown =>
  path === "(value)" ? value : path.split(".").reduce<unknown>((v, k) => (isRecord(v) ? v[k] : undefined), value)

export interface DagDiff {
  readonly nodes: ReadonlyArray<NodeChange>
  readonly edgesAdded: ReadonlyArray<DocEdge>
  readonly edgesRemoved: ReadonlyArray<DocEdge>
  readonly inputsAdded: ReadonlyArray<string>
  readonly inputsRemoved: ReadonlyArray<string>
  readonly inputsChanged: ReadonlyArray<string>
  /** Anything else of the DAG (`outputs`...) that differs, by top-level key. */
  readonly otherChanged: ReadonlyArray<string>
}

const same = (a: unknown, b: unknown) => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b))
const sorted = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(sorted) : isRecord(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v

/** The paths where two values differ: objects are walked key by key, anything else compared whole. */
export const changedPaths = (a: unknown, b: unknown, prefix = ""): ReadonlyArray<string> => {
  if (same(a, b)) return []
  if (!isRecord(a) || !isRecord(b)) return [prefix === "" ? "(value)" : prefix]
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
  return keys.flatMap((k) => changedPaths(a[k], b[k], prefix === "" ? k : `${prefix}.${k}`))
}

const edgeId = (e: DocEdge) => `${e.from}->${e.to}:${JSON.stringify(sorted(e.condition ?? null))}`

/** Where a node was drawn does not change what the AI Employee does: positions are left out. */
const meaning = (n: DocNode) => Object.fromEntries(Object.entries(n).filter(([k]) => k !== "position"))

/** What changed from version `from` to version `to`: nodes added, removed and changed (with their fields), edges, inputs. */
export const diffDags = (from: Doc, to: Doc): DagDiff => {
  const before = new Map(from.nodes.map((n) => [n.id, n]))
  const after = new Map(to.nodes.map((n) => [n.id, n]))
  const nodes: Array<NodeChange> = [
    ...to.nodes.flatMap((n): Array<NodeChange> => {
      const old = before.get(n.id)
      if (old === undefined) return [{ id: n.id, kind: "added", name: n.name ?? n.id, fields: [] }]
      const fields = changedPaths(meaning(old), meaning(n)).map((path) => ({ path, before: at(old, path), after: at(n, path) }))
      return fields.length === 0 ? [] : [{ id: n.id, kind: "changed", name: n.name ?? n.id, fields }]
    }),
    ...from.nodes.filter((n) => !after.has(n.id)).map((n): NodeChange => ({ id: n.id, kind: "removed", name: n.name ?? n.id, fields: [] }))
  ]
  const edgesBefore = new Set(from.edges.map(edgeId))
  const edgesAfter = new Set(to.edges.map(edgeId))
  const props = (d: Doc) => (isRecord(d.input_schema.properties) ? d.input_schema.properties : {})
  const inBefore = props(from)
  const inAfter = props(to)
  const required = (d: Doc, k: string) => Array.isArray(d.input_schema.required) && d.input_schema.required.includes(k)
  const restKeys = [...new Set([...Object.keys(from.rest), ...Object.keys(to.rest)])]
  return {
    nodes,
    edgesAdded: to.edges.filter((e) => !edgesBefore.has(edgeId(e))),
    edgesRemoved: from.edges.filter((e) => !edgesAfter.has(edgeId(e))),
    inputsAdded: Object.keys(inAfter).filter((k) => !(k in inBefore)),
    inputsRemoved: Object.keys(inBefore).filter((k) => !(k in inAfter)),
    inputsChanged: Object.keys(inAfter).filter((k) => k in inBefore && (!same(inBefore[k], inAfter[k]) || required(from, k) !== required(to, k))),
    otherChanged: restKeys.filter((k) => !same(from.rest[k], to.rest[k]))
  }
}

/** One canvas for both versions: the newer DAG, with the nodes and edges only the older one had drawn where they were. */
export const mergedDoc = (from: Doc, to: Doc): Doc => {
  const ids = new Set(to.nodes.map((n) => n.id))
  const edges = new Set(to.edges.map(edgeId))
  const removed = from.nodes.filter((n) => !ids.has(n.id))
  const all = new Set([...ids, ...removed.map((n) => n.id)])
  return {
    ...to,
    nodes: [...to.nodes, ...removed],
    edges: [...to.edges, ...from.edges.filter((e) => !edges.has(edgeId(e)) && all.has(e.from) && all.has(e.to))]
  }
}

import dagre from "@dagrejs/dagre"

export const NODE_WIDTH = 200
export const NODE_HEIGHT = 64

/** Positions by dagre, top to bottom: a DAG laid out automatically (top-left corners). */
export const autoLayout = (
  nodes: ReadonlyArray<{ readonly id: string }>,
  edges: ReadonlyArray<{ readonly from: string; readonly to: string }>
): ReadonlyMap<string, { readonly x: number; readonly y: number }> => {
  const g = new dagre.graphlib.Graph()
  g.setGraph({ rankdir: "TB", nodesep: 40, ranksep: 60 })
  g.setDefaultEdgeLabel(() => ({}))
  for (const n of nodes) g.setNode(n.id, { width: NODE_WIDTH, height: NODE_HEIGHT })
  for (const e of edges) if (g.hasNode(e.from) && g.hasNode(e.to)) g.setEdge(e.from, e.to)
  dagre.layout(g)
  return new Map(nodes.map((n) => {
    const p = g.node(n.id)
    return [n.id, { x: Math.round((p?.x ?? 0) - NODE_WIDTH / 2), y: Math.round((p?.y ?? 0) - NODE_HEIGHT / 2) }]
  }))
}

/** The DAG as a graph: ids and adjacency, independent of node configuration. */
export interface Graph {
  readonly ids: ReadonlyArray<string>
  readonly downstream: ReadonlyMap<string, ReadonlyArray<string>>
  readonly upstream: ReadonlyMap<string, ReadonlyArray<string>>
}

export const makeGraph = (ids: ReadonlyArray<string>, edges: ReadonlyArray<{ from: string; to: string }>): Graph => {
  const downstream = new Map<string, Array<string>>(ids.map((id) => [id, []]))
  const upstream = new Map<string, Array<string>>(ids.map((id) => [id, []]))
  for (const edge of edges) {
    if (!downstream.has(edge.from) || !upstream.has(edge.to)) continue
    downstream.get(edge.from)!.push(edge.to)
    upstream.get(edge.to)!.push(edge.from)
  }
  return { ids, downstream, upstream }
}

/**
 * Kahn's algorithm: a topological order of the nodes, and the nodes left over, which are those
 * on or behind a cycle.
 */
export const topologicalOrder = (graph: Graph): { readonly order: ReadonlyArray<string>; readonly cyclic: ReadonlyArray<string> } => {
  const indegree = new Map(graph.ids.map((id) => [id, graph.upstream.get(id)?.length ?? 0]))
  const queue = graph.ids.filter((id) => indegree.get(id) === 0)
  const order: Array<string> = []
  while (queue.length > 0) {
    const id = queue.shift()!
    order.push(id)
    for (const next of graph.downstream.get(id) ?? []) {
      const left = (indegree.get(next) ?? 0) - 1
      indegree.set(next, left)
      if (left === 0) queue.push(next)
    }
  }
  const placed = new Set(order)
  return { order, cyclic: graph.ids.filter((id) => !placed.has(id)) }
}

/** Every node reachable from `id`, not including it. */
export const reachableFrom = (graph: Graph, id: string): ReadonlySet<string> => {
  const seen = new Set<string>()
  const stack = [...(graph.downstream.get(id) ?? [])]
  while (stack.length > 0) {
    const next = stack.pop()!
    if (seen.has(next)) continue
    seen.add(next)
    stack.push(...(graph.downstream.get(next) ?? []))
  }
  return seen
}

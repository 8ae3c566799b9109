import "@xyflow/react/dist/style.css"
import { Background, Controls, type Edge, type Node, ReactFlow } from "@xyflow/react"
import { useMemo } from "react"
import type { DrawnEdge, DrawnNode } from "./dagShape"
import { autoLayout, NODE_WIDTH } from "./layout"

/** The AI Employee's DAG drawn with React Flow: each node's name and type, the edges (conditional ones dashed). */
export const DagView = ({ nodes, edges }: { readonly nodes: ReadonlyArray<DrawnNode>; readonly edges: ReadonlyArray<DrawnEdge> }) => {
  const drawn = useMemo(() => {
    const at = autoLayout(nodes, edges)
    const flowNodes: Array<Node> = nodes.map((n) => ({
      id: n.id,
      position: at.get(n.id) ?? { x: 0, y: 0 },
      data: {
        label: (
          <span className="dag-node">
            <strong>{n.name ?? n.id}</strong>
            <span>{n.type}</span>
          </span>
        )
      },
      className: `dag ${n.type}`,
      style: { width: NODE_WIDTH },
      draggable: false,
      connectable: false
    }))
    const flowEdges: Array<Edge> = edges.map((e, i) => ({
      id: `${e.from}-${e.to}-${i}`,
      source: e.from,
      target: e.to,
      animated: false,
      ...(e.condition !== undefined ? { style: { strokeDasharray: "6 4" }, label: "if" } : {})
    }))
    return { flowNodes, flowEdges }
  }, [nodes, edges])
  return (
    <div className="dag-canvas" aria-label="The AI Employee's DAG" role="img">
      <ReactFlow
        nodes={drawn.flowNodes}
        edges={drawn.flowEdges}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        nodesDraggable={false}
        nodesConnectable={false}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  )
}
export default DagView

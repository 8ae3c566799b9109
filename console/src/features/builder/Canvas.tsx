import "@xyflow/react/dist/style.css"
import {
  applyNodeChanges,
  Background,
  Controls,
  type Edge,
  Handle,
  MiniMap,
  type Node,
  type NodeChange,
  type NodeProps,
  Position,
  ReactFlow,
  useReactFlow
} from "@xyflow/react"
import { useEffect, useMemo, useState } from "react"
import { autoLayout, NODE_WIDTH } from "../employees/layout"
import { connect, type Doc, type DocNode, edgeKey, moveNodes, removeEdges, removeNodes } from "./dagDoc"
import { typeInfo } from "./nodeTypes"

export const START_ID = "__start"

const DELETE_KEYS = ["Delete", "Backspace"]

export interface Finding {
  readonly code: string
  readonly severity: "warning" | "error"
  readonly message: string
}

/** What the canvas shows on each node besides the node itself. */
export interface Marks {
  readonly findings?: ReadonlyMap<string, ReadonlyArray<Finding>>
  /** The step's status in the run shown (a dry run, a past run opened in the editor). */
  readonly status?: ReadonlyMap<string, string>
  /** The step's output (or error) in that run, pinned to the node. */
  readonly output?: ReadonlyMap<string, string>
  /** What the step was given in that run, short. */
  readonly input?: ReadonlyMap<string, string>
  readonly diff?: ReadonlyMap<string, "added" | "removed" | "changed">
  /** Edges (`from->to`) only the newer or only the older version of a comparison has. */
  readonly edgeDiff?: ReadonlyMap<string, "added" | "removed">
}

interface StepData extends Record<string, unknown> {
  readonly node?: DocNode
  readonly inputs?: ReadonlyArray<string>
  readonly findings: ReadonlyArray<Finding>
  readonly status?: string | undefined
  readonly output?: string | undefined
  readonly input?: string | undefined
  readonly diff?: string | undefined
}

const StepNode = ({ data, selected }: NodeProps<Node<StepData>>) => {
  const errors = data.findings.filter((f) => f.severity === "error").length
  const warnings = data.findings.length - errors
  const label = data.node === undefined ? "Start" : data.node.name ?? data.node.id
  return (
    <div
      className={`step-node${data.status !== undefined ? ` run-${data.status}` : ""}${data.diff !== undefined ? ` diff-${data.diff}` : ""}${
        errors > 0 ? " has-errors" : ""
      }${selected ? " selected" : ""}`}
      data-node-id={data.node?.id ?? START_ID}
      data-status={data.status}
      title={data.findings.map((f) => `${f.severity}: ${f.message}`).join("\n") || undefined}
    >
      {data.node !== undefined && <Handle type="target" position={Position.Top} />}
      <div className="step-title">
        <strong>{label}</strong>
        {data.status !== undefined && <span className={`badge step-status ${data.status}`}>{data.status}</span>}
      </div>
      <div className="step-type">
        {data.node === undefined
          ? `${data.inputs?.length ?? 0} input${data.inputs?.length === 1 ? "" : "s"}`
          : typeInfo(data.node.type)?.label ?? data.node.type}
        {errors > 0 && <span className="finding error" aria-label={`${errors} blocking problem${errors === 1 ? "" : "s"}`}>{errors} blocking</span>}
        {warnings > 0 && (
          <span className="finding warning" aria-label={`${warnings} warning${warnings === 1 ? "" : "s"}`}>{warnings} warning{warnings === 1 ? "" : "s"}</span>
        )}
        {data.diff !== undefined && <span className="diff-tag">{data.diff}</span>}
      </div>
      {data.input !== undefined && (
        <div className="step-input">
          <span className="muted">in</span> {data.input}
        </div>
      )}
      {data.output !== undefined && (
        <div className="step-output">
          <span className="muted">out</span> {data.output}
        </div>
      )}
      <Handle type="source" position={Position.Bottom} />
    </div>
  )
}

const nodeTypes = { step: StepNode }

/** A node added or removed: the view fits the DAG again, so a new node is never drawn off screen. */
const FitOnCount = ({ count }: { readonly count: number }) => {
  const flow = useReactFlow()
  useEffect(() => {
    const frame = requestAnimationFrame(() => void flow.fitView({ maxZoom: 1, duration: 150 }))
    return () => cancelAnimationFrame(frame)
  }, [count, flow])
  return null
}

const conditionText = (c: unknown) => {
  if (typeof c !== "object" || c === null) return "if"
  const { ref, op, value } = c as { ref?: unknown; op?: unknown; value?: unknown }
  return `if ${String(ref)} ${String(op)}${value === undefined ? "" : ` ${JSON.stringify(value)}`}`
}

/** Where each node is drawn: its saved position, else the automatic layout's. */
export const positionsOf = (doc: Doc) => {
  const laid = autoLayout([{ id: START_ID }, ...doc.nodes], [...roots(doc).map((id) => ({ from: START_ID, to: id })), ...doc.edges])
  const first = doc.nodes.find((n) => n.position !== undefined)?.position
  const start = laid.get(START_ID) ?? { x: 0, y: 0 }
  return {
    of: (n: DocNode) => n.position ?? laid.get(n.id) ?? { x: 0, y: 0 },
    // The start node sits above the first placed node when the builder placed nodes by hand.
    start: first !== undefined && doc.nodes.every((n) => n.position !== undefined) ? { x: first.x, y: first.y - 120 } : start
  }
}

/** The nodes no edge leads to: what the run starts with. */
export const roots = (doc: Doc) => doc.nodes.filter((n) => !doc.edges.some((e) => e.to === n.id)).map((n) => n.id)

/** Every node laid out again, top to bottom. */
export const relayout = (doc: Doc): Doc => {
  const laid = autoLayout(doc.nodes, doc.edges)
  return moveNodes(doc, laid)
}

/**
 * The DAG on a React Flow canvas: nodes moved by dragging, connected by dragging from a node's
 * bottom handle to another's top, deleted with Delete or Backspace; the start node (the inputs)
 * leads to every node without an incoming edge. Read-only when `onChange` is absent.
 */
export const Canvas = ({ doc, marks, onChange, onSelect, selected, onPick }: {
  readonly doc: Doc
  readonly marks: Marks
  readonly onChange?: (doc: Doc) => void
  readonly onSelect: (id: string | undefined) => void
  readonly selected: string | undefined
  /** Every node selected (a box drawn with Shift, Ctrl+click): what copy takes. */
  readonly onPick?: (ids: ReadonlyArray<string>) => void
}) => {
  const derived = useMemo((): Array<Node<StepData>> => {
    const inputs = Object.keys(doc.input_schema.properties ?? {})
    const at = positionsOf(doc)
    return [
      {
        id: START_ID,
        type: "step",
        position: at.start,
        data: { inputs, findings: marks.findings?.get(START_ID) ?? [] },
        deletable: false,
        selected: selected === START_ID,
        style: { width: NODE_WIDTH }
      },
      ...doc.nodes.map((n) => ({
        id: n.id,
        type: "step",
        position: at.of(n),
        selected: selected === n.id,
        style: { width: NODE_WIDTH },
        data: {
          node: n,
          findings: marks.findings?.get(n.id) ?? [],
          status: marks.status?.get(n.id),
          output: marks.output?.get(n.id),
          input: marks.input?.get(n.id),
          diff: marks.diff?.get(n.id)
        }
      }))
    ]
  }, [doc, marks, selected])
  const [nodes, setNodes] = useState(derived)
  // A node keeps its measured size across updates: React Flow hides a node until it is measured.
  useEffect(() =>
    setNodes((previous) => {
      const measured = new Map(previous.map((n) => [n.id, n.measured]))
      return derived.map((n) => (measured.get(n.id) !== undefined ? { ...n, measured: measured.get(n.id)! } : n))
    }), [derived])
  const edges = useMemo((): Array<Edge> => [
    ...roots(doc).map((id) => ({ id: `${START_ID}->${id}`, source: START_ID, target: id, deletable: false, selectable: false, className: "start-edge" })),
    ...doc.edges.map((e, i) => ({
      id: edgeKey(e, i),
      source: e.from,
      target: e.to,
      ...(marks.edgeDiff?.has(`${e.from}->${e.to}`) === true ? { className: `edge-${marks.edgeDiff.get(`${e.from}->${e.to}`)}` } : {}),
      ...(e.condition !== undefined ? { label: conditionText(e.condition), style: { strokeDasharray: "6 4" } } : {})
    }))
  ], [doc, marks.edgeDiff])
  const editable = onChange !== undefined
  return (
    <div className="builder-canvas" aria-label="The AI Employee's DAG">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={(changes: Array<NodeChange<Node<StepData>>>) => setNodes((ns) => applyNodeChanges(changes.filter((c) => c.type !== "remove"), ns))}
        onNodeDragStop={(_, __, dragged) => onChange?.(moveNodes(doc, new Map(dragged.filter((n) => n.id !== START_ID).map((n) => [n.id, n.position]))))}
        onConnect={(c) => {
          const next = c.source === START_ID ? undefined : connect(doc, c.source, c.target)
          if (next !== undefined) onChange?.(next)
        }}
        onDelete={({ nodes: gone, edges: cut }) => {
          const ids = new Set(gone.map((n) => n.id).filter((id) => id !== START_ID))
          onChange?.(removeNodes(removeEdges(doc, new Set(cut.map((e) => e.id))), ids))
          if (selected !== undefined && ids.has(selected)) onSelect(undefined)
        }}
        onNodeClick={(_, n) => onSelect(n.id)}
        onSelectionChange={({ nodes: picked }) => onPick?.(picked.map((n) => n.id).filter((id) => id !== START_ID))}
        onPaneClick={() => onSelect(undefined)}
        nodesDraggable={editable}
        nodesConnectable={editable}
        elementsSelectable
        deleteKeyCode={editable ? DELETE_KEYS : null}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <FitOnCount count={doc.nodes.length} />
        <MiniMap pannable zoomable ariaLabel="Overview of the DAG" nodeColor="#c9d4fa" maskColor="rgba(246, 247, 249, 0.7)" />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  )
}
export default Canvas

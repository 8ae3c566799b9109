import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router"
import { type KeyboardEvent, useEffect, useMemo, useReducer, useRef, useState } from "react"
import type { Workflow } from "../../../../schemas/Workflow"
import { api, ApiError } from "../../api/client"
import { allows, useSession } from "../../api/session"
import { StatusBadge } from "../../ui/Bits"
import { ErrorState, Loading } from "../../ui/States"
import { Canvas, type Finding, positionsOf, relayout, START_ID } from "./Canvas"
import { addNode, dagOf, type Doc, type DocEdge, type DocNode, docOf, freshId, paste, removeNodes, sameDag, updateNode, upstreamOf } from "./dagDoc"
import { historyReducer, startHistory } from "./history"
import { readLocalDraft, useLeaveGuard, writeLocalDraft } from "./localDraft"
import { NodePanel } from "./NodePanel"
import { newNode, nodeProblems, type NodeTypeInfo, referencesFor } from "./nodeTypes"
import { useRunOverlay } from "./runOverlay"
import { StartPanel } from "./StartPanel"
import { type Located, Problems, StepInRun, TestPanel } from "./TestPanel"
import { Palette, Toolbar } from "./Toolbar"

/** The canvas of an AI Employee: the route's page, which loads it and the signed-in person. */
export const BuilderPage = () => {
  const { employeeId } = useParams({ from: "/app/ai-employees/$employeeId/build" })
  const search = useSearch({ from: "/app/ai-employees/$employeeId/build" })
  const session = useSession()
  const employee = useQuery({
    queryKey: ["ai-employee", employeeId],
    queryFn: () => api((c) => c.workflows.get({ path: { id: employeeId as never } })),
    staleTime: Infinity
  })
  if (employee.isPending || session.data == null) return <Loading label="Opening the canvas" />
  if (employee.error !== null) return <ErrorState error={employee.error} retry={() => void employee.refetch()} />
  const readOnly = !allows(session.data.user.role, "build") || employee.data.adopted_at !== undefined || employee.data.archived
  return <Editor key={employee.data.id} workflow={employee.data} userId={session.data.user.id} runId={search.run} readOnly={readOnly} />
}

const locate = (findings: ReadonlyArray<Located>) => {
  const byNode = new Map<string, Array<Finding>>()
  for (const f of findings) {
    const at = f.node_id ?? START_ID
    byNode.set(at, [...(byNode.get(at) ?? []), f])
  }
  return byNode
}

/** The server's findings of the last save or publish (for nodes still there), and the schema's live ones for every node as it is now. */
const allFindings = (doc: Doc, server: ReadonlyArray<Located>): ReadonlyArray<Located> => {
  const ids = new Set(doc.nodes.map((n) => n.id))
  const live = doc.nodes.flatMap((n) =>
    [...nodeProblems(n)].map(([path, message]) => ({ code: "NODE_INVALID", severity: "error" as const, message: `${path}: ${message}`, node_id: n.id }))
  )
  return [...server.filter((f) => f.code !== "NODE_INVALID" && (f.node_id === undefined || ids.has(f.node_id))), ...live]
}

const Editor = (
  { workflow, userId, runId, readOnly }: {
    readonly workflow: Workflow
    readonly userId: string
    readonly runId: string | undefined
    readonly readOnly: boolean
  }
) => {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const [base, setBase] = useState(() => docOf(workflow.dag_definition))
  const [restored, setRestored] = useState(() => {
    const local = readLocalDraft(userId, workflow.id)
    return local !== undefined && !sameDag(docOf(local.dag), base) && !readOnly ? local : undefined
  })
  const [history, dispatch] = useReducer(historyReducer, undefined, () => startHistory(restored !== undefined ? docOf(restored.dag) : base))
  const doc = history.present
  const dirty = !readOnly && !sameDag(doc, base)
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const [picked, setPicked] = useState<ReadonlyArray<string>>([])
  const [side, setSide] = useState<"test" | "help">(runId !== undefined ? "test" : "help")
  const [server, setServer] = useState<ReadonlyArray<Located>>([])
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const clipboard = useRef<{ readonly nodes: ReadonlyArray<DocNode>; readonly edges: ReadonlyArray<DocEdge> } | undefined>(undefined)
  const overlay = useRunOverlay(runId)
  useLeaveGuard(dirty)
  useEffect(() => {
    if (!readOnly) {
      writeLocalDraft(userId, workflow.id, dirty ? { dag: dagOf(doc), base_version: workflow.latest_version, saved_at: new Date().toISOString() } : undefined)
    }
  }, [doc, dirty, readOnly, userId, workflow.id, workflow.latest_version])

  const change = (next: Doc, key?: string) => dispatch(key === undefined ? { kind: "change", doc: next } : { kind: "change", doc: next, key })
  const saved = (w: Workflow) => queryClient.setQueryData(["ai-employee", workflow.id], w)

  const save = useMutation({
    mutationFn: (d: Doc) => api((c) => c.workflows.update({ path: { id: workflow.id }, payload: { dag_definition: dagOf(d) } })),
    onSuccess: (w, d) => {
      setBase(d)
      setRestored(undefined)
      setServer(w.warnings)
      saved(w)
      void queryClient.invalidateQueries({ queryKey: ["ai-employee", workflow.id, "versions"] })
      setNotice(`Saved as version ${w.latest_version} (a draft: nothing changes for users until it is published)`)
    }
  })
  const saveIfDirty = async () => (dirty ? save.mutateAsync(doc) : undefined)
  const publish = useMutation({
    mutationFn: async () => {
      await saveIfDirty()
      return api((c) => c.workflows.publish({ path: { id: workflow.id } }))
    },
    onSuccess: (result) => {
      setServer(result.warnings)
      setNotice(
        `Version ${result.number} is live${
          result.warnings.length > 0 ? `, with ${result.warnings.length} warning${result.warnings.length === 1 ? "" : "s"}` : ""
        }`
      )
      void queryClient.invalidateQueries({ queryKey: ["ai-employee", workflow.id] })
      void queryClient.invalidateQueries({ queryKey: ["ai-employees"] })
    },
    onError: (error) => {
      if (error instanceof ApiError && error.status === 422) {
        setServer(error.details.filter((d): d is Located => typeof d === "object" && d !== null && "code" in d && "message" in d))
      }
    }
  })
  const test = useMutation({
    mutationFn: async (input: Record<string, unknown>) => {
      await saveIfDirty()
      return api((c) => c.runs.dryRun({ path: { id: workflow.id }, payload: { input_params: input }, headers: {} }))
    },
    onSuccess: (run) => void navigate({ to: "/ai-employees/$employeeId/build", params: { employeeId: workflow.id }, search: { run: run.id }, replace: true })
  })

  const findings = useMemo(() => allFindings(doc, server), [doc, server])
  const byNode = useMemo(() => locate(findings), [findings])
  const marks = useMemo(() => ({ findings: byNode, status: overlay.status, output: overlay.output, input: overlay.input }), [
    byNode,
    overlay.status,
    overlay.output,
    overlay.input
  ])
  const node = doc.nodes.find((n) => n.id === selected)

  const add = (info: NodeTypeInfo) => {
    const from = doc.nodes.find((n) => n.id === selected)
    const at = positionsOf(doc)
    const lowest = doc.nodes.reduce((y, n) => Math.max(y, at.of(n).y), at.start.y)
    const position = from !== undefined ? { x: at.of(from).x, y: at.of(from).y + 120 } : { x: at.start.x, y: lowest + 120 }
    const id = freshId(doc, info.type === "agent" ? "step" : info.type)
    let next = addNode(doc, newNode(info, id, position))
    if (from !== undefined) next = { ...next, edges: [...next.edges, { from: from.id, to: id }] }
    change(next)
    setSelected(id)
  }
  const keys = (e: KeyboardEvent) => {
    const mod = e.ctrlKey || e.metaKey
    if (mod && e.key.toLowerCase() === "s") {
      e.preventDefault()
      if (dirty) save.mutate(doc)
      return
    }
    if (readOnly || !mod || (e.target instanceof HTMLElement && e.target.closest("input, textarea, select") !== null)) return
    const k = e.key.toLowerCase()
    if (k === "z" && !e.shiftKey) dispatch({ kind: "undo" })
    else if ((k === "z" && e.shiftKey) || k === "y") dispatch({ kind: "redo" })
    else if (k === "c" && (picked.length > 0 || node !== undefined)) {
      const ids = new Set(picked.length > 0 ? picked : [node!.id])
      clipboard.current = { nodes: doc.nodes.filter((n) => ids.has(n.id)), edges: doc.edges.filter((e) => ids.has(e.from) && ids.has(e.to)) }
    } else if (k === "v" && clipboard.current !== undefined) {
      const pasted = paste(doc, clipboard.current.nodes, clipboard.current.edges)
      change(pasted.doc)
      setSelected(pasted.ids[0])
    } else return
    e.preventDefault()
  }

  return (
    <div className="builder" onKeyDown={keys}>
      <div className="page-head">
        <h1>
          <Link to="/ai-employees/$employeeId" params={{ employeeId: workflow.id }}>{workflow.name}</Link>{" "}
          <StatusBadge status={workflow.builder_state === "unpublished_changes" ? "draft" : workflow.builder_state} />
        </h1>
        <span className="muted">{workflow.active_version !== undefined ? `v${workflow.active_version} live · ` : ""}{workflow.latest_version} saved</span>
      </div>
      {readOnly && (
        <p className="notice">
          Read only: {workflow.adopted_at !== undefined
            ? "an adopted AI Employee runs its own history and is not edited here"
            : workflow.archived
            ? "restore the AI Employee to edit it"
            : "your role does not build AI Employees"}.
        </p>
      )}
      {restored !== undefined && (
        <p className="notice" role="status">
          Unsaved changes from {new Date(restored.saved_at).toLocaleString()} were restored{restored.base_version !== workflow.latest_version
            ? ` (made on version ${restored.base_version}; version ${workflow.latest_version} has been saved since)`
            : ""}.{" "}
          <button
            type="button"
            className="link"
            onClick={() => {
              dispatch({ kind: "reset", doc: base })
              setRestored(undefined)
            }}
          >
            Discard them
          </button>
        </p>
      )}
      {notice !== undefined && <p className="notice ok" role="status">{notice}</p>}
      {(save.error ?? publish.error) !== null && !(publish.error instanceof ApiError && publish.error.status === 422) && (
        <ErrorState error={save.error ?? publish.error} />
      )}
      <Toolbar
        dirty={dirty}
        canUndo={history.past.length > 0}
        canRedo={history.future.length > 0}
        saving={save.isPending}
        publishing={publish.isPending}
        readOnly={readOnly}
        onUndo={() => dispatch({ kind: "undo" })}
        onRedo={() => dispatch({ kind: "redo" })}
        onLayout={() => change(relayout(doc))}
        onSave={() => save.mutate(doc)}
        onPublish={() => publish.mutate()}
        onTest={() => {
          setSelected(undefined)
          setSide("test")
        }}
      />
      <div className="builder-body">
        <Palette onAdd={add} disabled={readOnly} />
        <Canvas
          doc={doc}
          marks={marks}
          selected={selected}
          onSelect={setSelected}
          onPick={setPicked}
          {...(readOnly ? {} : { onChange: (d: Doc) => change(d) })}
        />
        {node !== undefined && !readOnly
          ? (
            <NodePanel
              node={node}
              findings={byNode.get(node.id) ?? []}
              references={referencesFor(doc.input_schema, upstreamOf(doc, node.id))}
              taken={(id) => doc.nodes.some((n) => n.id === id)}
              onChange={(next, key) => {
                change(updateNode(doc, node.id, next), key)
                if (next.id !== node.id) setSelected(next.id)
              }}
              onRemove={() => {
                change(removeNodes(doc, new Set([node.id])))
                setSelected(undefined)
              }}
              inRun={overlay.detail.has(node.id) ? <StepInRun detail={overlay.detail.get(node.id)!} /> : undefined}
            />
          )
          : selected === START_ID && !readOnly
          ? (
            <StartPanel
              schema={doc.input_schema}
              findings={byNode.get(START_ID) ?? []}
              onChange={(schema, key) => change({ ...doc, input_schema: schema }, key)}
            />
          )
          : side === "test"
          ? (
            <TestPanel
              inputSchema={doc.input_schema}
              run={overlay.run}
              busy={test.isPending}
              error={test.error}
              onRun={(input) => test.mutate(input)}
            />
          )
          : (
            <aside className="side-panel" aria-label="Help">
              <p className="muted">
                Select a node to edit it, or the start node for the inputs. Add nodes from the palette (below the selected node, connected from it); drag from a
                node's lower edge to another to connect them; Delete removes what is selected.
              </p>
              <p className="muted">Ctrl+Z and Ctrl+Shift+Z undo and redo, Ctrl+C and Ctrl+V copy a node, Ctrl+S saves.</p>
            </aside>
          )}
      </div>
      <Problems findings={findings} onSelect={setSelected} />
    </div>
  )
}

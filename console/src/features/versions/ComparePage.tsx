import { useQuery } from "@tanstack/react-query"
import { Link, useParams, useSearch } from "@tanstack/react-router"
import { lazy, Suspense, useMemo, useState } from "react"
import { api } from "../../api/client"
import { ErrorState, Loading } from "../../ui/States"
import { docOf } from "../builder/dagDoc"
import { type DagDiff, diffDags, mergedDoc } from "./versionDiff"

// React Flow loads only where a DAG is drawn.
const Canvas = lazy(() => import("../builder/Canvas"))

const useVersion = (id: string, n: number | undefined) =>
  useQuery({
    queryKey: ["ai-employee", id, "version", n],
    enabled: n !== undefined,
    queryFn: () => api((c) => c.aiEmployees.version({ path: { id: id as never, version: n! } })),
    staleTime: Infinity
  })

const number = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : undefined)

/** The knowledge-base document sets of two published versions compared. */
const DocumentDiff = ({ id, from, to }: { readonly id: string; readonly from: number; readonly to: number }) => {
  const diff = useQuery({
    queryKey: ["ai-employee", id, "document-diff", from, to],
    queryFn: () => api((c) => c.aiEmployees.documentDiff({ path: { id: id as never, version: from }, urlParams: { compare_to: to } }))
  })
  if (diff.isPending) return <Loading label="Comparing the knowledge" />
  if (diff.error !== null) return <ErrorState error={diff.error} />
  const d = diff.data
  const total = d.added.length + d.removed.length + d.changed.length
  return (
    <section aria-label="Knowledge documents">
      <h2>Knowledge documents</h2>
      {total === 0 ? <p className="muted">The same documents in both versions.</p> : (
        <ul className="diff-list">
          {d.added.map((x) => (
            <li key={`a${x.document_id}`} className="added">
              added document <span className="mono">{x.document_id}</span> <span className="muted">in {x.knowledge_base_id}</span>
            </li>
          ))}
          {d.removed.map((x) => (
            <li key={`r${x.document_id}`} className="removed">
              removed document <span className="mono">{x.document_id}</span> <span className="muted">from {x.knowledge_base_id}</span>
            </li>
          ))}
          {d.changed.map((x) => (
            <li key={`c${x.document_id}`} className="changed">
              changed document <span className="mono">{x.document_id}</span> <span className="muted">in {x.knowledge_base_id}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

const shown = (v: unknown) => {
  const text = v === undefined ? "(none)" : typeof v === "string" ? v : JSON.stringify(v)
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

const DiffText = ({ diff }: { readonly diff: DagDiff }) => {
  const nothing =
    diff.nodes.length + diff.edgesAdded.length + diff.edgesRemoved.length + diff.inputsAdded.length + diff.inputsRemoved.length + diff.inputsChanged.length +
        diff.otherChanged.length === 0
  return (
    <section aria-label="Changes">
      <h2>Changes</h2>
      {nothing && <p className="muted">The two versions have the same DAG.</p>}
      <ul className="diff-list">
        {diff.nodes.map((n) => (
          <li key={n.id} className={n.kind} data-node-id={n.id}>
            <strong>{n.kind}</strong> node {n.name} <span className="mono muted">{n.id}</span>
            {n.fields.length > 0 && (
              <dl className="field-changes">
                {n.fields.map((f) => (
                  <div key={f.path}>
                    <dt>
                      <code>{f.path}</code>
                    </dt>
                    <dd>
                      <del>{shown(f.before)}</del> → <ins>{shown(f.after)}</ins>
                    </dd>
                  </div>
                ))}
              </dl>
            )}
          </li>
        ))}
        {diff.edgesAdded.map((e) => (
          <li key={`+${e.from}${e.to}`} className="added">
            <strong>added</strong> edge {e.from} → {e.to}
          </li>
        ))}
        {diff.edgesRemoved.map((e) => (
          <li key={`-${e.from}${e.to}`} className="removed">
            <strong>removed</strong> edge {e.from} → {e.to}
          </li>
        ))}
        {diff.inputsAdded.map((k) => (
          <li key={`+i${k}`} className="added">
            <strong>added</strong> input {k}
          </li>
        ))}
        {diff.inputsRemoved.map((k) => (
          <li key={`-i${k}`} className="removed">
            <strong>removed</strong> input {k}
          </li>
        ))}
        {diff.inputsChanged.map((k) => (
          <li key={`~i${k}`} className="changed">
            <strong>changed</strong> input {k}
          </li>
        ))}
        {diff.otherChanged.map((k) => (
          <li key={`~${k}`} className="changed">
            <strong>changed</strong> {k}
          </li>
        ))}
      </ul>
    </section>
  )
}

/**
 * Two versions compared (`from` older, `to` newer): the nodes added, removed and changed drawn on
 * one canvas and listed with their changed fields, and, for two published versions, their
 * knowledge documents. With `to` alone: that version, read only.
 */
export const ComparePage = () => {
  const { employeeId } = useParams({ from: "/app/ai-employees/$employeeId/compare" })
  const search = useSearch({ from: "/app/ai-employees/$employeeId/compare" })
  const from = number(search.from)
  const to = number(search.to)
  const a = useVersion(employeeId, from)
  const b = useVersion(employeeId, to)
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const view = useMemo(() => {
    if (b.data === undefined) return undefined
    const after = docOf(b.data.dag_definition)
    if (from === undefined || a.data === undefined) return { doc: after, diff: undefined }
    const before = docOf(a.data.dag_definition)
    const diff = diffDags(before, after)
    return {
      doc: mergedDoc(before, after),
      diff,
      marks: {
        diff: new Map(diff.nodes.map((n) => [n.id, n.kind])),
        edgeDiff: new Map([
          ...diff.edgesAdded.map((e) => [`${e.from}->${e.to}`, "added"] as const),
          ...diff.edgesRemoved.map((e) => [`${e.from}->${e.to}`, "removed"] as const)
        ])
      }
    }
  }, [a.data, b.data, from])
  if (to === undefined) return <ErrorState error={new Error("Name a version to show (?to=)")} />
  if (b.isPending || (from !== undefined && a.isPending)) return <Loading label="Loading the versions" />
  const failed = b.error ?? a.error
  if (failed !== null) return <ErrorState error={failed} />
  if (view === undefined) return <Loading />
  return (
    <article aria-labelledby="compare-title">
      <div className="page-head">
        <h1 id="compare-title">{from !== undefined ? `Version ${from} → version ${to}` : `Version ${to}`}</h1>
        <Link to="/ai-employees/$employeeId" params={{ employeeId }} search={{ tab: "versions" }}>Back to the versions</Link>
      </div>
      <Suspense fallback={<Loading label="Drawing the DAG" />}>
        <Canvas doc={view.doc} marks={"marks" in view && view.marks !== undefined ? view.marks : {}} selected={selected} onSelect={setSelected} />
      </Suspense>
      {view.diff !== undefined && <DiffText diff={view.diff} />}
      {from !== undefined && a.data?.published_at !== undefined && b.data?.published_at !== undefined && <DocumentDiff id={employeeId} from={from} to={to} />}
    </article>
  )
}

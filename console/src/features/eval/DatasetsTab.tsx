import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import type { Dataset } from "../../../../schemas/Eval"
import { api } from "../../api/client"
import { uploadDataset } from "../../api/upload"
import { When } from "../../ui/Bits"
import { Empty, ErrorState, Query } from "../../ui/States"
import { datasetsQuery } from "./evalApi"

type Role = "input" | "expected" | "simulator" | "ignore"

const guess = (header: string): Role =>
  /^simulator[_ ]instructions$/i.test(header) ? "simulator" : /^(expected|answer|reference)/i.test(header) ? "expected" : "input"

/** The rows as mapped, first ten: what the evaluation will give the AI Employee and expect back. */
const RowsPreview = ({ dataset }: { readonly dataset: Dataset }) => {
  const rows = useQuery({
    queryKey: ["eval", "rows", dataset.id, dataset.mapped_rows],
    queryFn: () => api((c) => c.eval.rows({ path: { id: dataset.id }, urlParams: { page: 1, page_size: 10 } }))
  })
  return (
    <Query query={rows} empty={(p) => (p.items.length === 0 ? <Empty>No rows mapped yet.</Empty> : undefined)}>
      {(page) => (
        <table className="grid" aria-label="Rows preview">
          <thead>
            <tr>
              <th>#</th>
              <th>inputs</th>
              <th>expected output</th>
              <th>simulator</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((r) => (
              <tr key={r.id}>
                <td>{r.position + 1}</td>
                <td className="mono">{JSON.stringify(r.inputs)}</td>
                <td className="mono">{r.expected_output === undefined ? "—" : JSON.stringify(r.expected_output)}</td>
                <td>{r.simulator_instructions ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Query>
  )
}

/** The column-mapping step: each CSV column an input, an expected output, the simulated user's instructions, or left out. */
const Mapping = ({ dataset }: { readonly dataset: Dataset }) => {
  const queryClient = useQueryClient()
  const [roles, setRoles] = useState<Record<string, Role>>(() =>
    Object.fromEntries(dataset.headers.map((h) => {
      const mapped = dataset.input_map !== null && Object.values(dataset.input_map).includes(h) ?
        "input"
        : dataset.expected_output_map !== null && Object.values(dataset.expected_output_map).includes(h) ?
        "expected"
        : undefined
      return [h, mapped ?? (dataset.input_map === null ? guess(h) : "ignore")]
    }))
  )
  const columns = (role: Role) => Object.fromEntries(dataset.headers.filter((h) => roles[h] === role).map((h) => [h, h]))
  const map = useMutation({
    mutationFn: () => {
      const simulator = dataset.headers.find((h) => roles[h] === "simulator")
      const expected = columns("expected")
      return api((c) =>
        c.eval.mapDataset({
          path: { id: dataset.id },
          payload: {
            input_map: columns("input"),
            ...(Object.keys(expected).length > 0 ? { expected_output_map: expected } : {}),
            ...(simulator !== undefined ? { simulator_instructions_column: simulator } : {})
          }
        })
      )
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["eval", "datasets", dataset.workflow_id] })
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    map.mutate()
  }
  return (
    <form onSubmit={submit} className="card settings-form" aria-label="Column mapping">
      <h3>Columns</h3>
      <div className="mapping">
        {dataset.headers.map((h) => (
          <label key={h}>
            <span className="mono">{h}</span>
            <select value={roles[h]} onChange={(e) => setRoles({ ...roles, [h]: e.target.value as Role })} aria-label={`Column ${h}`}>
              <option value="input">input</option>
              <option value="expected">expected output</option>
              <option value="simulator">simulator instructions</option>
              <option value="ignore">leave out</option>
            </select>
          </label>
        ))}
      </div>
      {map.error !== null && <ErrorState error={map.error} />}
      <button type="submit" className="primary" disabled={map.isPending || Object.keys(columns("input")).length === 0}>Apply mapping</button>
      {dataset.mapped_rows > 0 && <p className="muted" role="status">{dataset.mapped_rows} of {dataset.row_count} rows mapped</p>}
    </form>
  )
}

const Upload = ({ workflowId, onDone }: { readonly workflowId: string; readonly onDone: (d: Dataset) => void }) => {
  const queryClient = useQueryClient()
  const [name, setName] = useState("")
  const [file, setFile] = useState<File | undefined>(undefined)
  const upload = useMutation({
    mutationFn: () => uploadDataset(workflowId, name.trim() === "" ? file!.name : name.trim(), file!),
    onSuccess: async (d) => {
      await queryClient.invalidateQueries({ queryKey: ["eval", "datasets", workflowId] })
      onDone(d)
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (file !== undefined) upload.mutate()
  }
  return (
    <form onSubmit={submit} className="filters" aria-label="Upload a dataset">
      <label>
        Name <input value={name} onChange={(e) => setName(e.target.value)} placeholder="From the file's name" />
      </label>
      <label>
        CSV file <input type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.target.files?.[0])} />
      </label>
      <button type="submit" className="primary" disabled={file === undefined || upload.isPending}>Upload</button>
      {upload.error !== null && <ErrorState error={upload.error} />}
    </form>
  )
}

/** An AI Employee's datasets: upload a CSV, map its columns, preview the rows, delete. */
export const DatasetsTab = ({ workflowId }: { readonly workflowId: string }) => {
  const queryClient = useQueryClient()
  const datasets = useQuery(datasetsQuery(workflowId))
  const [open, setOpen] = useState<string | undefined>(undefined)
  const remove = useMutation({
    mutationFn: (id: string) => api((c) => c.eval.deleteDataset({ path: { id } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["eval", "datasets", workflowId] })
  })
  return (
    <div>
      <Upload workflowId={workflowId} onDone={(d) => setOpen(d.id)} />
      <Query query={datasets} empty={(l) => (l.items.length === 0 ? <Empty>No dataset yet: upload a CSV with a header line.</Empty> : undefined)}>
        {(list) => (
          <ul className="cards">
            {list.items.map((d) => (
              <li key={d.id} className="card">
                <header>
                  <button type="button" className="link" onClick={() => setOpen(open === d.id ? undefined : d.id)} aria-expanded={open === d.id}>
                    {d.name}
                  </button>
                  <span className="muted small">
                    {d.row_count} rows · {d.mapped_rows} mapped · <When at={d.created_at} />
                  </span>
                  <button type="button" className="danger" onClick={() => window.confirm(`Delete ${d.name}?`) && remove.mutate(d.id)}>Delete</button>
                </header>
                {open === d.id && (
                  <>
                    <Mapping key={`${d.id}-${d.mapped_rows}`} dataset={d} />
                    <RowsPreview dataset={d} />
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </Query>
      {remove.error !== null && <ErrorState error={remove.error} />}
    </div>
  )
}

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { api } from "../../api/client"
import { Empty, ErrorState, Query } from "../../ui/States"
import { configsQuery, rubricsQuery } from "./evalApi"

const text = (v: string) => (v.trim() === "" ? {} : undefined)

/** A config: what is scored (the whole AI Employee or one agent node), by which rubric and judge, with a simulated user for conversations. */
const NewConfig = ({ workflowId, done }: { readonly workflowId: string; readonly done: () => void }) => {
  const queryClient = useQueryClient()
  const rubrics = useQuery(rubricsQuery(workflowId))
  const [f, setF] = useState({
    name: "",
    target_type: "workflow" as "workflow" | "agent",
    target_node_id: "",
    rubric_id: "",
    judge_model: "",
    max_turns: "",
    simulator_instructions: ""
  })
  const create = useMutation({
    mutationFn: () =>
      api((c) =>
        c.eval.createConfig({
          payload: {
            workflow_id: workflowId,
            name: f.name,
            target_type: f.target_type,
            rubric_id: f.rubric_id,
            ...(text(f.target_node_id) ?? { target_node_id: f.target_node_id.trim() }),
            ...(text(f.judge_model) ?? { judge_model: f.judge_model.trim() }),
            ...(text(f.simulator_instructions) ?? { simulator_instructions: f.simulator_instructions }),
            ...(text(f.max_turns) ?? { max_turns: Number(f.max_turns) })
          }
        })
      ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ["eval", "configs", workflowId] })
      done()
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate()
  }
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value })
  return (
    <form className="card settings-form" onSubmit={submit} aria-label="New config">
      <h3>New config</h3>
      <label>
        Name <input value={f.name} onChange={set("name")} required />
      </label>
      <div className="field-row wide">
        <label>
          Scores
          <select value={f.target_type} onChange={set("target_type")}>
            <option value="workflow">the whole AI Employee</option>
            <option value="agent">one agent step</option>
          </select>
        </label>
        {f.target_type === "agent" && (
          <label>
            Agent step id <input value={f.target_node_id} onChange={set("target_node_id")} required />
          </label>
        )}
        <label>
          Rubric
          <select value={f.rubric_id} onChange={set("rubric_id")} required>
            <option value="">Pick a rubric</option>
            {(rubrics.data?.items ?? []).map((r) => <option key={r.id} value={r.id}>{r.name}</option>)}
          </select>
        </label>
        <label>
          Judge model <input value={f.judge_model} onChange={set("judge_model")} placeholder="The AI Employee's" />
        </label>
        <label>
          Turns (conversations) <input type="number" min={1} max={20} value={f.max_turns} onChange={set("max_turns")} />
        </label>
      </div>
      <label>
        Simulated user's instructions <textarea rows={2} value={f.simulator_instructions} onChange={set("simulator_instructions")} />
      </label>
      {create.error !== null && <ErrorState error={create.error} />}
      <div className="card-actions">
        <button type="submit" className="primary" disabled={create.isPending}>Save config</button>
        <button type="button" onClick={done}>Cancel</button>
      </div>
    </form>
  )
}

export const ConfigsTab = ({ workflowId }: { readonly workflowId: string }) => {
  const queryClient = useQueryClient()
  const configs = useQuery(configsQuery(workflowId))
  const rubrics = useQuery(rubricsQuery(workflowId))
  const [adding, setAdding] = useState(false)
  const remove = useMutation({
    mutationFn: (id: string) => api((c) => c.eval.deleteConfig({ path: { id } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["eval", "configs", workflowId] })
  })
  const rubricName = (id: string) => rubrics.data?.items.find((r) => r.id === id)?.name ?? id
  return (
    <div>
      {adding
        ? <NewConfig workflowId={workflowId} done={() => setAdding(false)} />
        : <button type="button" className="primary" onClick={() => setAdding(true)}>New config</button>}
      <Query query={configs} empty={(l) => (l.items.length === 0 ? <Empty>No config yet: a config names the rubric and what it scores.</Empty> : undefined)}>
        {(list) => (
          <table className="grid">
            <thead>
              <tr>
                <th>name</th>
                <th>scores</th>
                <th>rubric</th>
                <th>judge</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.items.map((c) => (
                <tr key={c.id}>
                  <td>{c.name}</td>
                  <td>{c.target_type === "agent" ? `step ${c.target_node_id ?? ""}` : "the AI Employee"}</td>
                  <td>{rubricName(c.rubric_id)}</td>
                  <td>{c.judge_model ?? "default"}</td>
                  <td>
                    <button type="button" className="danger" onClick={() => window.confirm(`Delete ${c.name}?`) && remove.mutate(c.id)}>Delete</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Query>
      {remove.error !== null && <ErrorState error={remove.error} />}
    </div>
  )
}

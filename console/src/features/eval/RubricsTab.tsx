import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import type { Rubric } from "../../../../schemas/Eval"
import { api } from "../../api/client"
import { Empty, ErrorState, Query } from "../../ui/States"
import { rubricsQuery } from "./evalApi"

interface Draft {
  readonly name: string
  readonly instructions: string
  readonly schema: string
}

const EXAMPLE_SCHEMA = JSON.stringify({ type: "object", properties: { accuracy: { type: "number", minimum: 0, maximum: 5 } }, required: ["accuracy"] }, null, 2)

const draftOf = (r: { name: string; rubric_instructions: string; rubric_schema: unknown }): Draft => ({
  name: r.name,
  instructions: r.rubric_instructions,
  schema: JSON.stringify(r.rubric_schema, null, 2)
})

/** A rubric's name, the judge's instructions and the score fields (JSON Schema); a draft made from a description. */
const RubricEditor = ({ workflowId, rubric, done }: { readonly workflowId: string; readonly rubric: Rubric | undefined; readonly done: () => void }) => {
  const queryClient = useQueryClient()
  const [draft, setDraft] = useState<Draft>(rubric === undefined ? { name: "", instructions: "", schema: EXAMPLE_SCHEMA } : draftOf(rubric))
  const [description, setDescription] = useState("")
  const [invalid, setInvalid] = useState<string | undefined>(undefined)
  const generate = useMutation({
    mutationFn: () => api((c) => c.eval.generateRubric({ payload: { description, workflow_id: workflowId } })),
    onSuccess: (d) => setDraft(draftOf(d))
  })
  const save = useMutation({
    mutationFn: (schema: Record<string, unknown>) => {
      const payload = { workflow_id: workflowId, name: draft.name, rubric_instructions: draft.instructions, rubric_schema: schema }
      return rubric === undefined
        ? api((c) => c.eval.createRubric({ payload }))
        : api((c) =>
          c.eval.replaceRubric({
            path: { id: rubric.id },
            payload: { ...payload, ...(rubric.variable_catalog !== null ? { variable_catalog: rubric.variable_catalog } : {}) }
          })
        )
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ["eval", "rubrics", workflowId] })
      done()
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const parsed = ((): unknown => {
      try {
        return JSON.parse(draft.schema)
      } catch {
        return undefined
      }
    })()
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return setInvalid("The score fields must be a JSON object (a JSON Schema)")
    setInvalid(undefined)
    save.mutate(parsed as Record<string, unknown>)
  }
  return (
    <div className="card settings-form">
      <h3>{rubric === undefined ? "New rubric" : `Edit ${rubric.name}`}</h3>
      <div className="inline-form" role="group" aria-label="Generate a draft">
        <label>
          Describe what good looks like <input value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
        <button type="button" onClick={() => generate.mutate()} disabled={description.trim() === "" || generate.isPending}>
          {generate.isPending ? "Writing a draft…" : "Generate a draft"}
        </button>
      </div>
      {generate.error !== null && <ErrorState error={generate.error} />}
      <form onSubmit={submit} aria-label="Rubric">
        <label>
          Name <input value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} required />
        </label>
        <label>
          Instructions for the judge{" "}
          <textarea rows={4} value={draft.instructions} onChange={(e) => setDraft({ ...draft, instructions: e.target.value })} required />
        </label>
        <label>
          Score fields (JSON Schema){" "}
          <textarea className="mono" rows={8} value={draft.schema} onChange={(e) => setDraft({ ...draft, schema: e.target.value })} />
        </label>
        {invalid !== undefined && <p className="error-text" role="alert">{invalid}</p>}
        {save.error !== null && <ErrorState error={save.error} />}
        <div className="card-actions">
          <button type="submit" className="primary" disabled={save.isPending}>Save rubric</button>
          <button type="button" onClick={done}>Cancel</button>
        </div>
      </form>
    </div>
  )
}

/** An AI Employee's rubrics: the judge's instructions and score fields. */
export const RubricsTab = ({ workflowId }: { readonly workflowId: string }) => {
  const queryClient = useQueryClient()
  const rubrics = useQuery(rubricsQuery(workflowId))
  const [editing, setEditing] = useState<Rubric | "new" | undefined>(undefined)
  const remove = useMutation({
    mutationFn: (id: string) => api((c) => c.eval.deleteRubric({ path: { id } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["eval", "rubrics", workflowId] })
  })
  return (
    <div>
      {editing === undefined
        ? <button type="button" className="primary" onClick={() => setEditing("new")}>New rubric</button>
        : (
          <RubricEditor
            key={editing === "new" ? "new" : editing.id}
            workflowId={workflowId}
            rubric={editing === "new" ? undefined : editing}
            done={() => setEditing(undefined)}
          />
        )}
      <Query query={rubrics} empty={(l) => (l.items.length === 0 ? <Empty>No rubric yet.</Empty> : undefined)}>
        {(list) => (
          <ul className="cards">
            {list.items.map((r) => (
              <li key={r.id} className="card">
                <header>
                  <strong>{r.name}</strong>
                  <span className="muted small">{Object.keys(r.rubric_schema.properties ?? {}).join(", ")}</span>
                  <button type="button" onClick={() => setEditing(r)}>Edit</button>
                  <button type="button" className="danger" onClick={() => window.confirm(`Delete ${r.name}?`) && remove.mutate(r.id)}>Delete</button>
                </header>
                <p className="muted">{r.rubric_instructions}</p>
              </li>
            ))}
          </ul>
        )}
      </Query>
      {remove.error !== null && <ErrorState error={remove.error} />}
    </div>
  )
}

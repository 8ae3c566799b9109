import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { useNavigate } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import { InteractionType } from "../../../../schemas/Workflow"
import { api } from "../../api/client"
import { ErrorState } from "../../ui/States"

/**
 * A new AI Employee, blank or from one of the workspace's templates (an independent copy of its
 * DAG), named and described here; the canvas opens on it.
 */
export const CreateEmployee = ({ onClose }: { readonly onClose: () => void }) => {
  const templates = useQuery({ queryKey: ["templates"], queryFn: () => api((c) => c.workflows.templates()), staleTime: 60_000 })
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const [from, setFrom] = useState("blank")
  const [name, setName] = useState("")
  const [description, setDescription] = useState("")
  const [interaction, setInteraction] = useState<typeof InteractionType.Type>("form")
  const [category, setCategory] = useState("")
  const [icon, setIcon] = useState("")
  const [nameError, setNameError] = useState<string | undefined>(undefined)
  const create = useMutation({
    mutationFn: async () => {
      const details = {
        name: name.trim(),
        ...(description.trim() !== "" ? { description: description.trim() } : {}),
        ...(category.trim() !== "" ? { category: category.trim() } : {}),
        ...(icon.trim() !== "" ? { icon: icon.trim() } : {})
      }
      if (from === "blank") return api((c) => c.aiEmployees.create({ payload: { ...details, interaction_type: interaction } }))
      const made = await api((c) => c.workflows.fromTemplate({ path: { id: from } }))
      return api((c) => c.workflows.update({ path: { id: made.id }, payload: details }))
    },
    onSuccess: (w) => {
      void queryClient.invalidateQueries({ queryKey: ["ai-employees"] })
      void navigate({ to: "/ai-employees/$employeeId/build", params: { employeeId: w.id } })
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (name.trim() === "") {
      setNameError("A name is required")
      return
    }
    setNameError(undefined)
    create.mutate()
  }
  const template = templates.data?.items.find((t) => t.id === from)
  return (
    <form className="card create-employee" onSubmit={submit} aria-label="New AI Employee" noValidate>
      <header>
        <h2>New AI Employee</h2>
        <button type="button" onClick={onClose}>Close</button>
      </header>
      <fieldset className="field-group">
        <legend>Start from</legend>
        <label className="check">
          <input type="radio" name="from" checked={from === "blank"} onChange={() => setFrom("blank")} /> A blank canvas
        </label>
        {(templates.data?.items ?? []).map((t) => (
          <label key={t.id} className="check">
            <input type="radio" name="from" checked={from === t.id} onChange={() => setFrom(t.id)} /> {t.name}{" "}
            <span className="muted small">{t.category} · {t.interaction_type} · {t.description}</span>
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor="new-aie-name">Name *</label>
        <input
          id="new-aie-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-invalid={nameError !== undefined}
          aria-describedby={nameError !== undefined ? "new-aie-name-error" : undefined}
        />
        {nameError !== undefined && <span id="new-aie-name-error" className="error-text">{nameError}</span>}
      </div>
      <div className="field">
        <label htmlFor="new-aie-description">Description</label>
        <textarea id="new-aie-description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} />
      </div>
      <div className="field-row wide">
        <div className="field">
          <label htmlFor="new-aie-interaction">Interaction</label>
          <select
            id="new-aie-interaction"
            value={template?.interaction_type ?? interaction}
            disabled={template !== undefined}
            onChange={(e) => setInteraction(e.target.value as typeof InteractionType.Type)}
          >
            {InteractionType.literals.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </div>
        <div className="field">
          <label htmlFor="new-aie-category">Category</label>
          <input id="new-aie-category" value={category} onChange={(e) => setCategory(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="new-aie-icon">Icon</label>
          <input id="new-aie-icon" value={icon} onChange={(e) => setIcon(e.target.value)} placeholder="An emoji or an image URL" />
        </div>
      </div>
      {create.error !== null && <ErrorState error={create.error} />}
      <button type="submit" className="primary" disabled={create.isPending}>Create and open the canvas</button>
    </form>
  )
}

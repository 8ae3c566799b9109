import { useMutation, useQueryClient } from "@tanstack/react-query"
import { useNavigate } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import { InteractionType, type Workflow } from "../../../../schemas/Workflow"
import { api } from "../../api/client"
import { useTenants } from "../../api/session"
import { ErrorState } from "../../ui/States"

/** Name, description, interaction, icon and category, saved together. */
const Details = ({ workflow, disabled }: { readonly workflow: Workflow; readonly disabled: boolean }) => {
  const queryClient = useQueryClient()
  const [name, setName] = useState(workflow.name)
  const [description, setDescription] = useState(workflow.description ?? "")
  const [interaction, setInteraction] = useState(workflow.interaction_type)
  const [icon, setIcon] = useState(workflow.icon ?? "")
  const [category, setCategory] = useState(workflow.category ?? "")
  const [saved, setSaved] = useState(false)
  const save = useMutation({
    mutationFn: () =>
      api((c) =>
        c.workflows.update({
          path: { id: workflow.id },
          // An empty category puts the AI Employee back in Uncategorized; an empty icon or description clears it.
          payload: {
            name: name.trim(),
            description: description.trim() === "" ? null : description.trim(),
            interaction_type: interaction,
            icon: icon.trim() === "" ? null : icon.trim(),
            category: category.trim()
          }
        })
      ),
    onSuccess: (w) => {
      queryClient.setQueryData(["ai-employee", workflow.id], w)
      void queryClient.invalidateQueries({ queryKey: ["ai-employees"] })
      setSaved(true)
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    setSaved(false)
    save.mutate()
  }
  return (
    <form className="card settings-form" onSubmit={submit} aria-label="Details">
      <h2>Details</h2>
      <label>
        Name <input value={name} onChange={(e) => setName(e.target.value)} required disabled={disabled} />
      </label>
      <label>
        Description <textarea rows={2} value={description} onChange={(e) => setDescription(e.target.value)} disabled={disabled} />
      </label>
      <div className="field-row wide">
        <label>
          Interaction
          <select value={interaction} onChange={(e) => setInteraction(e.target.value as typeof InteractionType.Type)} disabled={disabled}>
            {InteractionType.literals.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </label>
        <label>
          Icon <input value={icon} onChange={(e) => setIcon(e.target.value)} placeholder="An emoji or an image URL" disabled={disabled} />
        </label>
        <label>
          Category <input value={category} onChange={(e) => setCategory(e.target.value)} placeholder="Uncategorized" disabled={disabled} />
        </label>
      </div>
      {save.error !== null && <ErrorState error={save.error} />}
      {saved && <p className="notice ok" role="status">Details saved</p>}
      <button type="submit" className="primary" disabled={disabled || save.isPending || name.trim() === ""}>Save details</button>
    </form>
  )
}

/** Clone, share to another of the person's workspaces (adopted there), archive and restore. */
const Actions = ({ workflow, canWrite }: { readonly workflow: Workflow; readonly canWrite: boolean }) => {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const tenants = useTenants()
  const [cloneName, setCloneName] = useState(`${workflow.name} (Copy)`)
  const [target, setTarget] = useState("")
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ["ai-employee", workflow.id] })
    void queryClient.invalidateQueries({ queryKey: ["ai-employees"] })
  }
  const clone = useMutation({
    mutationFn: () => api((c) => c.aiEmployees.clone({ path: { id: workflow.id }, payload: cloneName.trim() === "" ? {} : { name: cloneName.trim() } })),
    onSuccess: (w) => {
      refresh()
      void navigate({ to: "/ai-employees/$employeeId", params: { employeeId: w.id } })
    }
  })
  const share = useMutation({
    mutationFn: () => api((c) => c.aiEmployees.share({ path: { id: workflow.id }, payload: { target_tenant_id: target as never } })),
    onSuccess: () => setNotice(`Shared: the other workspace now has it as an adopted AI Employee that runs on its own history`)
  })
  const archive = useMutation({
    mutationFn: () => api((c) => c.workflows.archive({ path: { id: workflow.id } })),
    onSuccess: refresh
  })
  const restore = useMutation({
    mutationFn: () => api((c) => c.workflows.restore({ path: { id: workflow.id } })),
    onSuccess: refresh
  })
  const others = (tenants.data?.items ?? []).filter((t) => t.tenant_id !== workflow.tenant_id)
  const failure = clone.error ?? share.error ?? archive.error ?? restore.error
  return (
    <section className="card settings-form" aria-label="Actions">
      <h2>Copies and archive</h2>
      {notice !== undefined && <p className="notice ok" role="status">{notice}</p>}
      {failure !== null && <ErrorState error={failure} />}
      <div className="inline-form">
        <label>
          Name of the copy <input value={cloneName} onChange={(e) => setCloneName(e.target.value)} />
        </label>
        <button type="button" disabled={!canWrite || clone.isPending} onClick={() => clone.mutate()}>Clone</button>
      </div>
      {others.length > 0 && (
        <div className="inline-form">
          <label>
            Share to workspace
            <select value={target} onChange={(e) => setTarget(e.target.value)}>
              <option value="">Choose…</option>
              {others.map((t) => <option key={t.tenant_id} value={t.tenant_id}>{t.name}</option>)}
            </select>
          </label>
          <button type="button" disabled={!canWrite || target === "" || share.isPending} onClick={() => share.mutate()}>Share</button>
        </div>
      )}
      {workflow.archived
        ? <button type="button" disabled={!canWrite || restore.isPending} onClick={() => restore.mutate()}>Restore</button>
        : (
          <button
            type="button"
            className="danger"
            disabled={!canWrite || archive.isPending}
            onClick={() => window.confirm(`Archive ${workflow.name}? It stops being offered; runs in flight finish. You can restore it.`) && archive.mutate()}
          >
            Archive
          </button>
        )}
    </section>
  )
}

export const SettingsPanel = ({ workflow, canWrite }: { readonly workflow: Workflow; readonly canWrite: boolean }) => (
  <div className="settings">
    <Details key={workflow.id} workflow={workflow} disabled={!canWrite || workflow.archived} />
    <Actions workflow={workflow} canWrite={canWrite} />
  </div>
)

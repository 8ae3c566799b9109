import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import type { Workflow } from "../../../../schemas/Workflow"
import { api } from "../../api/client"
import { ErrorState } from "../../ui/States"
import { Copyable, sampleInput } from "./WebhooksCard"

/** Documents landing in a knowledge base (a folder, some types) start runs. */
export const DocumentTriggersCard = ({ workflowId, canWrite }: { readonly workflowId: string; readonly canWrite: boolean }) => {
  const queryClient = useQueryClient()
  const key = ["ai-employee", workflowId, "document-triggers"]
  const list = useQuery({ queryKey: key, queryFn: () => api((c) => c.documentTriggers.list({ path: { id: workflowId as never } })) })
  const kbs = useQuery({
    queryKey: ["knowledge-bases"],
    queryFn: () => api((c) => c.ingestion.listKbs({ urlParams: { page: 1, page_size: 100 } })),
    staleTime: 30_000
  })
  const [kb, setKb] = useState("")
  const [folder, setFolder] = useState("")
  const [types, setTypes] = useState("")
  const [fireOn, setFireOn] = useState<"created" | "updated" | "any">("created")
  const refresh = () => void queryClient.invalidateQueries({ queryKey: key })
  const create = useMutation({
    mutationFn: () =>
      api((c) =>
        c.documentTriggers.create({
          path: { id: workflowId as never },
          payload: {
            knowledge_base_id: kb,
            folder_prefix: folder.trim(),
            mime_type_allowlist: types.split(",").map((t) => t.trim()).filter((t) => t !== ""),
            fire_on: fireOn,
            enabled: true
          }
        })
      ),
    onSuccess: refresh
  })
  const toggle = useMutation({
    mutationFn: ({ id, on }: { readonly id: string; readonly on: boolean }) =>
      api((
        c
      ) => (on
        ? c.documentTriggers.enable({ path: { id: workflowId as never, binding_id: id as never } })
        : c.documentTriggers.disable({ path: { id: workflowId as never, binding_id: id as never } }))
      ),
    onSuccess: refresh
  })
  const remove = useMutation({
    mutationFn: (id: string) => api((c) => c.documentTriggers.remove({ path: { id: workflowId as never, binding_id: id as never } })),
    onSuccess: refresh
  })
  const name = (id: string) => kbs.data?.items.find((k) => k.id === id)?.name ?? id
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate()
  }
  return (
    <section className="card settings-form" aria-label="Document triggers">
      <h2>Document triggers</h2>
      <ul className="plain">
        {(list.data?.items ?? []).map((t) => (
          <li key={t.id}>
            <strong>{name(t.knowledge_base_id)}</strong> {t.folder_prefix !== "" ? <span className="mono">{t.folder_prefix}</span> : "any folder"} · {t.fire_on}
            {t.mime_type_allowlist.length > 0 && <>· {t.mime_type_allowlist.join(", ")}</>} ·{" "}
            <span className={`badge ${t.enabled ? "ok" : "muted"}`}>{t.enabled ? "on" : "off"}</span>
            {t.last_error !== null && <div className="error-text small">Last match started no run: {t.last_error}</div>}
            {canWrite && (
              <span className="row-actions">
                <button type="button" className="link" onClick={() => toggle.mutate({ id: t.id, on: !t.enabled })}>{t.enabled ? "Turn off" : "Turn on"}</button>
                <button type="button" className="link danger" onClick={() => remove.mutate(t.id)}>Delete</button>
              </span>
            )}
          </li>
        ))}
      </ul>
      {canWrite && (
        <form className="inline-form" onSubmit={submit} aria-label="New document trigger">
          <label>
            Knowledge base
            <select value={kb} onChange={(e) => setKb(e.target.value)} required>
              <option value="">Choose…</option>
              {(kbs.data?.items ?? []).map((k) => <option key={k.id} value={k.id}>{k.name}</option>)}
            </select>
          </label>
          <label>
            Folder <input value={folder} onChange={(e) => setFolder(e.target.value)} placeholder="finance/ (empty: all)" />
          </label>
          <label>
            Types <input value={types} onChange={(e) => setTypes(e.target.value)} placeholder="application/pdf, text/plain" />
          </label>
          <label>
            Fires on
            <select value={fireOn} onChange={(e) => setFireOn(e.target.value as typeof fireOn)}>
              <option value="created">a new document</option>
              <option value="updated">a new version</option>
              <option value="any">both</option>
            </select>
          </label>
          <button type="submit" disabled={kb === "" || create.isPending}>Add trigger</button>
        </form>
      )}
      {(create.error ?? toggle.error ?? remove.error) !== null && <ErrorState error={create.error ?? toggle.error ?? remove.error} />}
    </section>
  )
}

/** Mail to the AI Employee's address starts a run while it is on. */
export const EmailCard = ({ workflowId, canWrite }: { readonly workflowId: string; readonly canWrite: boolean }) => {
  const queryClient = useQueryClient()
  const key = ["ai-employee", workflowId, "email"]
  const settings = useQuery({ queryKey: key, queryFn: () => api((c) => c.inboundEmail.getSettings({ path: { id: workflowId as never } })) })
  const put = useMutation({
    mutationFn: (enabled: boolean) => api((c) => c.inboundEmail.settings({ path: { id: workflowId as never }, payload: { enabled } })),
    // The box follows the click at once; a refusal puts it back.
    onMutate: (enabled) => queryClient.setQueryData(key, (s: typeof settings.data) => (s === undefined ? s : { ...s, enabled })),
    onSuccess: (s) => queryClient.setQueryData(key, s),
    onError: () => void queryClient.invalidateQueries({ queryKey: key })
  })
  return (
    <section className="card settings-form" aria-label="Inbound email">
      <h2>Inbound email</h2>
      {settings.data !== undefined && (
        <>
          <label className="check">
            <input type="checkbox" checked={settings.data.enabled} disabled={!canWrite || put.isPending} onChange={(e) => put.mutate(e.target.checked)} />{" "}
            Mail to this address starts a run
          </label>
          <Copyable label="Email address" text={settings.data.address} />
        </>
      )}
      {(settings.error ?? put.error) !== null && <ErrorState error={settings.error ?? put.error} />}
    </section>
  )
}

/** Anyone with the link may start runs of the published version, without signing in. */
export const PublicAppCard = ({ workflow, canWrite }: { readonly workflow: Workflow; readonly canWrite: boolean }) => {
  const queryClient = useQueryClient()
  const put = useMutation({
    mutationFn: (on: boolean) => api((c) => c.workflows.update({ path: { id: workflow.id }, payload: { public_app: on } })),
    onMutate: (on) => queryClient.setQueryData(["ai-employee", workflow.id], { ...workflow, public_app: on }),
    onSuccess: (w) => queryClient.setQueryData(["ai-employee", workflow.id], w),
    onError: () => void queryClient.invalidateQueries({ queryKey: ["ai-employee", workflow.id] })
  })
  const url = `${location.origin}/api/v1/workflow/public/${workflow.id}/run`
  const example = `curl -X POST '${url}' \\\n  -H 'Content-Type: application/json' \\\n  --data '${
    JSON.stringify({ input_params: sampleInput(workflow.dag_definition.input_schema) }).replace(/'/g, "'\\''")
  }'`
  return (
    <section className="card settings-form" aria-label="Public app">
      <h2>Public app</h2>
      <label className="check">
        <input type="checkbox" checked={workflow.public_app} disabled={!canWrite || put.isPending} onChange={(e) => put.mutate(e.target.checked)} />{" "}
        Anyone with the link may start runs, without signing in (rate-limited per address)
      </label>
      {workflow.public_app && (
        <p>
          Its page for visitors: <a href={`/apps/${workflow.id}`} target="_blank" rel="noreferrer">{`${location.origin}/apps/${workflow.id}`}</a>
        </p>
      )}
      {workflow.public_app && <Copyable label="Public run URL" text={example} />}
      {workflow.public_app && workflow.active_version === undefined && (
        <p className="muted small">Publish a version first: the public app runs the published one.</p>
      )}
      {put.error !== null && <ErrorState error={put.error} />}
    </section>
  )
}

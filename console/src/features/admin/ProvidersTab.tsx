import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { api } from "../../api/client"
import { Empty, ErrorState, Query } from "../../ui/States"

const modelIds = (text: string) => text.split(/[\s,]+/).map((s) => s.trim()).filter((s) => s !== "")

const NewProvider = () => {
  const queryClient = useQueryClient()
  const [name, setName] = useState("")
  const [url, setUrl] = useState("")
  const [key, setKey] = useState("")
  const [models, setModels] = useState("")
  const create = useMutation({
    mutationFn: () =>
      api((c) =>
        c.llmProviders.create({
          payload: {
            name,
            base_url: url,
            ...(key !== "" ? { api_key: key } : {}),
            models: modelIds(models).map((id) => ({ id, cost_tier: 2, speed_tier: 2 })) as never,
            enabled: true
          }
        })
      ),
    onSuccess: async () => {
      setName("")
      setUrl("")
      setKey("")
      setModels("")
      await queryClient.invalidateQueries({ queryKey: ["admin", "providers"] })
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate()
  }
  return (
    <form className="card settings-form" onSubmit={submit} aria-label="New model provider">
      <h3>New model provider (OpenAI-compatible)</h3>
      <div className="field-row wide">
        <label>
          Provider name <input value={name} onChange={(e) => setName(e.target.value)} required placeholder="acme-llm" />
        </label>
        <label>
          Base URL <input value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://llm.example.com/v1" />
        </label>
        <label>
          API key <input type="password" value={key} onChange={(e) => setKey(e.target.value)} placeholder="optional" />
        </label>
      </div>
      <label>
        Models (ids, comma or space separated) <input value={models} onChange={(e) => setModels(e.target.value)} required />
      </label>
      {create.error !== null && <ErrorState error={create.error} />}
      <button type="submit" className="primary" disabled={create.isPending || modelIds(models).length === 0}>Add provider</button>
    </form>
  )
}

/** The workspace's own model providers, beside the platform's: their models, on or off, removed. */
export const ProvidersTab = () => {
  const queryClient = useQueryClient()
  const providers = useQuery({ queryKey: ["admin", "providers"], queryFn: () => api((c) => c.llmProviders.list({ urlParams: { page: 1, page_size: 100 } })) })
  const act = useMutation({
    mutationFn: (a: { readonly id: string; readonly enabled?: boolean }): Promise<unknown> =>
      a.enabled === undefined
        ? api((c) => c.llmProviders.remove({ path: { id: a.id } }))
        : api((c) => c.llmProviders.update({ path: { id: a.id }, payload: { enabled: a.enabled } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "providers"] })
  })
  return (
    <div>
      <NewProvider />
      {act.error !== null && <ErrorState error={act.error} />}
      <Query
        query={providers}
        empty={(p) => (p.items.length === 0 ? <Empty>No provider of the workspace's own: its AI Employees use the platform's models.</Empty> : undefined)}
      >
        {(p) => (
          <table className="grid" aria-label="Model providers">
            <thead>
              <tr>
                <th>name</th>
                <th>base URL</th>
                <th>models</th>
                <th>key</th>
                <th />
                <th />
              </tr>
            </thead>
            <tbody>
              {p.items.map((m) => (
                <tr key={m.id}>
                  <td>{m.name}</td>
                  <td className="mono small">{m.base_url}</td>
                  <td>{m.models.map((x) => x.id).join(", ")}</td>
                  <td>{m.has_api_key ? "set" : "none"}</td>
                  <td>
                    <button type="button" onClick={() => act.mutate({ id: m.id, enabled: !m.enabled })} disabled={act.isPending}>
                      {m.enabled ? "Turn off" : "Turn on"}
                    </button>
                  </td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => window.confirm(`Remove ${m.name}?`) && act.mutate({ id: m.id })}
                      disabled={act.isPending}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Query>
    </div>
  )
}

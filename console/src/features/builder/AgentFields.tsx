import { useQuery } from "@tanstack/react-query"
import { useId, useRef, useState } from "react"
import { api } from "../../api/client"
import type { Json } from "./dagDoc"
import type { Reference } from "./nodeTypes"

const useAgentTypes = () => useQuery({ queryKey: ["agent-types"], queryFn: () => api((c) => c.agents.types()), staleTime: 60_000 })
const useKnowledgeBases = () =>
  useQuery({ queryKey: ["knowledge-bases"], queryFn: () => api((c) => c.ingestion.listKbs({ urlParams: { page: 1, page_size: 100 } })), staleTime: 30_000 })

/** Agent type and the version the step pins (the live one offered first). */
export const AgentTypeFields = ({ config, onChange, problem }: {
  readonly config: Json
  readonly onChange: (next: Json, key: string) => void
  readonly problem?: string | undefined
}) => {
  const id = useId()
  const types = useAgentTypes()
  const items = types.data?.items ?? []
  const chosen = items.find((t) => t.type === config.agent_type)
  return (
    <div className="field-row">
      <div className="field">
        <label htmlFor={`${id}-type`}>Agent type *</label>
        <select
          id={`${id}-type`}
          value={typeof config.agent_type === "string" ? config.agent_type : ""}
          onChange={(e) => {
            const next = items.find((t) => t.type === e.target.value)
            onChange({ ...config, agent_type: e.target.value, type_version: next?.live_version ?? next?.versions[0]?.version ?? "v1" }, "agent_type")
          }}
        >
          {chosen === undefined && <option value={String(config.agent_type ?? "")}>{String(config.agent_type ?? "Choose…")}</option>}
          {items.map((t) => <option key={t.type} value={t.type}>{t.type}</option>)}
        </select>
        {chosen !== undefined && <span className="muted small">{chosen.description}</span>}
      </div>
      <div className="field">
        <label htmlFor={`${id}-version`}>Version *</label>
        <select
          id={`${id}-version`}
          value={String(config.type_version ?? "")}
          onChange={(e) => onChange({ ...config, type_version: e.target.value }, "type_version")}
          aria-describedby={problem !== undefined ? `${id}-p` : undefined}
        >
          {(chosen?.versions ?? [{ version: String(config.type_version ?? "v1"), status: "" }]).map((v) => (
            <option key={v.version} value={v.version}>
              {v.version}
              {v.status !== "" && v.status !== "live" ? ` (${v.status})` : v.version === chosen?.live_version ? " (live)" : ""}
            </option>
          ))}
        </select>
        {problem !== undefined && <span id={`${id}-p`} className="error-text">{problem}</span>}
      </div>
    </div>
  )
}

/**
 * The step's instructions, with `{{...}}` references completed as they are typed: after `{{` the
 * references the step may use (the start node's inputs, upstream outputs) are offered.
 */
export const InstructionsField = ({ value, onChange, references, problem }: {
  readonly value: string
  readonly onChange: (next: string) => void
  readonly references: ReadonlyArray<Reference>
  readonly problem?: string | undefined
}) => {
  const id = useId()
  const area = useRef<HTMLTextAreaElement>(null)
  const [caret, setCaret] = useState<number | undefined>(undefined)
  const open = caret === undefined ? undefined : /\{\{\s*([\w.-]*)$/.exec(value.slice(0, caret))
  const offered = open === null || open === undefined ? [] : references.filter((r) => r.path.startsWith(open[1] ?? "") && r.path !== open[1]).slice(0, 12)
  const insert = (path: string) => {
    if (caret === undefined || open === null || open === undefined) return
    const before = value.slice(0, caret - open[0].length)
    const after = value.slice(caret).replace(/^[\w.-]*\s*\}\}/, "")
    const text = `${before}{{${path}}}`
    onChange(text + after)
    setCaret(undefined)
    requestAnimationFrame(() => {
      area.current?.focus()
      area.current?.setSelectionRange(text.length, text.length)
    })
  }
  const track = () => setCaret(area.current?.selectionStart ?? undefined)
  return (
    <div className={`field${problem !== undefined ? " invalid" : ""}`}>
      <label htmlFor={id}>Instructions *</label>
      <textarea
        id={id}
        ref={area}
        rows={6}
        value={value}
        onChange={(e) => {
          onChange(e.target.value)
          setCaret(e.target.selectionStart)
        }}
        onKeyUp={track}
        onClick={track}
        onKeyDown={(e) => {
          if ((e.key === "Enter" || e.key === "Tab") && offered.length > 0) {
            e.preventDefault()
            insert(offered[0].path)
          }
          if (e.key === "Escape") setCaret(undefined)
        }}
        aria-describedby={`${id}-hint`}
        aria-autocomplete="list"
        aria-controls={offered.length > 0 ? `${id}-refs` : undefined}
      />
      <span id={`${id}-hint`} className="muted small">Type {"{{"} to insert a reference to an input or an earlier step's output.</span>
      {offered.length > 0 && (
        <ul id={`${id}-refs`} role="listbox" aria-label="References" className="references">
          {offered.map((r, i) => (
            <li key={r.path} role="option" aria-selected={i === 0}>
              <button type="button" onMouseDown={(e) => e.preventDefault()} onClick={() => insert(r.path)}>
                <span className="mono">{r.path}</span> <span className="muted">{r.from}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {problem !== undefined && <span className="error-text">{problem}</span>}
    </div>
  )
}

/** The knowledge bases the step searches: the workspace's, ticked. */
export const KnowledgeField = ({ value, onChange }: { readonly value: ReadonlyArray<string>; readonly onChange: (next: ReadonlyArray<string>) => void }) => {
  const kbs = useKnowledgeBases()
  const items = kbs.data?.items ?? []
  return (
    <fieldset className="field-group">
      <legend>Knowledge bases</legend>
      {kbs.isPending && <span className="muted small">Loading…</span>}
      {!kbs.isPending && items.length === 0 && <span className="muted small">The workspace has no knowledge base yet.</span>}
      {items.map((kb) => (
        <label key={kb.id} className="check">
          <input
            type="checkbox"
            checked={value.includes(kb.id)}
            onChange={(e) => onChange(e.target.checked ? [...value, kb.id] : value.filter((v) => v !== kb.id))}
          />{" "}
          {kb.name}
        </label>
      ))}
      {value.filter((v) => !items.some((kb) => kb.id === v)).map((v) => <span key={v} className="muted small mono">{v} (not in this workspace)</span>)}
    </fieldset>
  )
}

const useTools = () => ({
  functions: useQuery({ queryKey: ["callable-functions"], queryFn: () => api((c) => c.integrations.callable()), staleTime: 30_000 }),
  installed: useQuery({ queryKey: ["integrations"], queryFn: () => api((c) => c.integrations.installed()), staleTime: 30_000 }),
  mcp: useQuery({ queryKey: ["mcp-servers"], queryFn: () => api((c) => c.mcpServers.list()), staleTime: 30_000 })
})

const toggled = (list: ReadonlyArray<string>, id: string, on: boolean) => (on ? [...list, id] : list.filter((v) => v !== id))

/**
 * The tools the step may call: functions of the workspace's installed integrations and its MCP
 * servers. What still waits for an admin (an integration pending, a server in review) is shown as
 * such: publishing with it is refused until it is approved.
 */
export const ToolsField = ({ actions, servers, onChange }: {
  readonly actions: ReadonlyArray<string>
  readonly servers: ReadonlyArray<string>
  readonly onChange: (next: { readonly action_ids: ReadonlyArray<string>; readonly mcp_server_ids: ReadonlyArray<string> }) => void
}) => {
  const { functions, installed, mcp } = useTools()
  const pending = (installed.data?.items ?? []).filter((i) => i.status !== "active")
  return (
    <fieldset className="field-group">
      <legend>Tools</legend>
      {(functions.data?.items ?? []).map((f) => (
        <label key={f.function_id} className="check" title={f.description}>
          <input
            type="checkbox"
            checked={actions.includes(f.function_id)}
            onChange={(e) => onChange({ action_ids: toggled(actions, f.function_id, e.target.checked), mcp_server_ids: servers })}
          />{" "}
          {f.integration_name}.{f.function_name}
          {f.side_effects && <span className="badge wait">changes data</span>}
        </label>
      ))}
      {pending.map((i) => (
        <span key={i.id} className="muted small">{i.display_name}: {i.status === "pending" ? "pending an admin's approval" : "disabled"}</span>
      ))}
      {(mcp.data?.items ?? []).map((s) => (
        <label key={s.id} className="check">
          <input
            type="checkbox"
            checked={servers.includes(s.id)}
            onChange={(e) => onChange({ action_ids: actions, mcp_server_ids: toggled(servers, s.id, e.target.checked) })}
          />{" "}
          MCP {s.name} <span className="muted small">{s.tool_count} tools</span>
          {s.status !== "active" && <span className="badge wait">{s.status === "pending_review" ? "pending an admin's review" : "disabled"}</span>}
        </label>
      ))}
      {!functions.isPending && !mcp.isPending && (functions.data?.items.length ?? 0) + (mcp.data?.items.length ?? 0) === 0 && (
        <span className="muted small">No tools yet: an admin installs integrations and registers MCP servers for the workspace.</span>
      )}
      {[
        ...actions.filter((a) => !(functions.data?.items ?? []).some((f) => f.function_id === a)),
        ...servers.filter((s) => !(mcp.data?.items ?? []).some((m) => m.id === s))
      ].map((id) => <span key={id} className="error-text small mono">{id}: not a tool of this workspace</span>)}
    </fieldset>
  )
}

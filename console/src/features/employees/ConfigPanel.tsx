import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { LlmMode, OptimizationPriority, type WorkflowConfig } from "../../../../schemas/Workflow"
import { api } from "../../api/client"
import { ErrorState, Query } from "../../ui/States"
import { EmbedCard } from "../chat/EmbedCard"

const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter((l) => l !== "")

/** The models the workspace's own providers offer: suggestions for the selected models. */
const useProviderModels = () =>
  useQuery({
    queryKey: ["llm-providers"],
    queryFn: () => api((c) => c.llmProviders.list({ urlParams: { page: 1, page_size: 100 } })),
    staleTime: 60_000,
    select: (p) => [...new Set(p.items.flatMap((x) => x.models.map((m) => m.id)))]
  })

/** `llm-config`: which models (all, selected, custom), what to optimise for, fields kept from models, own providers. */
const ModelConfig = ({ id, config, disabled }: { readonly id: string; readonly config: WorkflowConfig; readonly disabled: boolean }) => {
  const queryClient = useQueryClient()
  const models = useProviderModels()
  const [mode, setMode] = useState(config.llm_mode)
  const [selected, setSelected] = useState(config.selected_model_ids.join("\n"))
  const [priority, setPriority] = useState(config.optimization_priority)
  const [fields, setFields] = useState(config.data_protection_fields.join("\n"))
  const [own, setOwn] = useState(config.use_own_providers)
  const [custom, setCustom] = useState(JSON.stringify(config.custom_model_config, null, 2))
  const [customError, setCustomError] = useState<string | undefined>(undefined)
  const [saved, setSaved] = useState(false)
  const save = useMutation({
    mutationFn: (customConfig: Readonly<Record<string, unknown>>) =>
      api((c) =>
        c.workflows.patchLlmConfig({
          path: { id: id as never },
          payload: {
            llm_mode: mode,
            selected_model_ids: lines(selected),
            optimization_priority: priority,
            data_protection_fields: lines(fields),
            use_own_providers: own,
            custom_model_config: customConfig
          }
        })
      ),
    onSuccess: (next) => {
      queryClient.setQueryData(["ai-employee", id, "config"], next)
      setSaved(true)
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    setSaved(false)
    try {
      const parsed: unknown = JSON.parse(custom.trim() === "" ? "{}" : custom)
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object")
      setCustomError(undefined)
      save.mutate(parsed as Record<string, unknown>)
    } catch {
      setCustomError("The custom model configuration must be a JSON object")
    }
  }
  return (
    <form className="card settings-form" onSubmit={submit} aria-label="Models">
      <h2>Models</h2>
      <div className="field-row wide">
        <label>
          Models allowed
          <select value={mode} onChange={(e) => setMode(e.target.value as typeof LlmMode.Type)} disabled={disabled}>
            {LlmMode.literals.map((m) => (
              <option key={m} value={m}>{m === "ALL" ? "All enabled models" : m === "SELECTED" ? "Only the selected models" : "Custom configuration"}</option>
            ))}
          </select>
        </label>
        <label>
          Optimise for
          <select value={priority} onChange={(e) => setPriority(e.target.value as typeof OptimizationPriority.Type)} disabled={disabled}>
            {OptimizationPriority.literals.map((p) => <option key={p} value={p}>{p.replace("_", " ").toLowerCase()}</option>)}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={own} onChange={(e) => setOwn(e.target.checked)} disabled={disabled} /> Use the workspace's own providers
        </label>
      </div>
      {mode === "SELECTED" && (
        <label>
          Selected models (one a line)
          <textarea rows={3} value={selected} onChange={(e) => setSelected(e.target.value)} disabled={disabled} />
          {(models.data ?? []).length > 0 && <span className="muted small">The workspace's providers offer: {models.data!.join(", ")}</span>}
        </label>
      )}
      {mode === "CUSTOM" && (
        <label>
          Custom model configuration (JSON)
          <textarea
            className="mono"
            rows={4}
            value={custom}
            onChange={(e) => setCustom(e.target.value)}
            disabled={disabled}
            aria-invalid={customError !== undefined}
          />
          {customError !== undefined && <span className="error-text">{customError}</span>}
        </label>
      )}
      <label>
        Data protection fields (one a line): input fields that never reach a model
        <textarea rows={2} value={fields} onChange={(e) => setFields(e.target.value)} disabled={disabled} />
      </label>
      {save.error !== null && <ErrorState error={save.error} />}
      {saved && <p className="notice ok" role="status">Model settings saved</p>}
      <button type="submit" className="primary" disabled={disabled || save.isPending}>Save model settings</button>
    </form>
  )
}

/** The chat experience: the welcome message and its buttons, feedback and where feedback goes. */
const ChatConfig = ({ id, config, disabled }: { readonly id: string; readonly config: WorkflowConfig; readonly disabled: boolean }) => {
  const queryClient = useQueryClient()
  const [welcome, setWelcome] = useState(config.welcome_message ?? "")
  const [buttons, setButtons] = useState(config.welcome_buttons.map((b) => (b.label === b.value ? b.label : `${b.label} = ${b.value}`)).join("\n"))
  const [feedback, setFeedback] = useState(config.feedback_enabled)
  const [categories, setCategories] = useState(config.feedback_categories.join("\n"))
  const [feedbackWorkflow, setFeedbackWorkflow] = useState(config.feedback_workflow_id ?? "")
  const employees = useQuery({
    queryKey: ["ai-employees", "all"],
    queryFn: () => api((c) => c.workflows.list({ urlParams: { page_size: 100, archived: false } })),
    staleTime: 30_000
  })
  const [saved, setSaved] = useState(false)
  const save = useMutation({
    mutationFn: () =>
      api((c) =>
        c.workflows.putConfig({
          path: { id: id as never },
          payload: {
            ...config,
            welcome_message: welcome.trim() === "" ? null : welcome,
            welcome_buttons: lines(buttons).map((l) => {
              const [label, value] = l.split(/\s*=\s*/, 2)
              return { label: label, value: value ?? label }
            }),
            feedback_enabled: feedback,
            feedback_categories: lines(categories),
            feedback_workflow_id: feedbackWorkflow === "" ? null : feedbackWorkflow as never
          }
        })
      ),
    onSuccess: (next) => {
      queryClient.setQueryData(["ai-employee", id, "config"], next)
      setSaved(true)
    }
  })
  return (
    <form className="card settings-form" onSubmit={(e) => (e.preventDefault(), setSaved(false), save.mutate())} aria-label="Chat settings">
      <h2>Chat</h2>
      <label>
        Welcome message <textarea rows={2} value={welcome} onChange={(e) => setWelcome(e.target.value)} disabled={disabled} />
      </label>
      <label>
        Welcome buttons (one a line: <span className="mono">Label</span> or <span className="mono">Label = value</span>){" "}
        <textarea rows={3} value={buttons} onChange={(e) => setButtons(e.target.value)} disabled={disabled} />
      </label>
      <label className="check">
        <input type="checkbox" checked={feedback} onChange={(e) => setFeedback(e.target.checked)} disabled={disabled} /> Ask for feedback on answers
      </label>
      {feedback && (
        <>
          <label>
            Feedback categories (one a line) <textarea rows={3} value={categories} onChange={(e) => setCategories(e.target.value)} disabled={disabled} />
          </label>
          <label>
            Feedback workflow: the AI Employee each piece of feedback starts
            <select value={feedbackWorkflow} onChange={(e) => setFeedbackWorkflow(e.target.value)} disabled={disabled}>
              <option value="">None</option>
              {(employees.data?.items ?? []).filter((w) => w.id !== id).map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
            </select>
          </label>
        </>
      )}
      {save.error !== null && <ErrorState error={save.error} />}
      {saved && <p className="notice ok" role="status">Chat settings saved</p>}
      <button type="submit" className="primary" disabled={disabled || save.isPending}>Save chat settings</button>
    </form>
  )
}

export const ConfigPanel = (
  { id, name, chat, canWrite }: { readonly id: string; readonly name: string; readonly chat: boolean; readonly canWrite: boolean }
) => {
  const config = useQuery({ queryKey: ["ai-employee", id, "config"], queryFn: () => api((c) => c.workflows.getConfig({ path: { id: id as never } })) })
  return (
    <Query query={config}>
      {(c) => (
        <div className="settings">
          <ModelConfig id={id} config={c} disabled={!canWrite} />
          <ChatConfig id={id} config={c} disabled={!canWrite} />
          {chat && <EmbedCard id={id} name={name} disabled={!canWrite} />}
        </div>
      )}
    </Query>
  )
}

import { type ReactNode, useEffect, useId, useState } from "react"
import { ObjectFields, SchemaField } from "../../ui/JsonSchemaFields"
import { AgentTypeFields, InstructionsField, KnowledgeField, ToolsField } from "./AgentFields"
import type { Finding } from "./Canvas"
import { type DocNode, isRecord, type Json } from "./dagDoc"
import { HITL_SCHEMA, nodeProblems, type Reference, typeInfo } from "./nodeTypes"

const NODE_ID = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

/** The node's id, changed when the field is left (its edges follow it). */
const IdField = ({ id, taken, onRename }: { readonly id: string; readonly taken: (id: string) => boolean; readonly onRename: (id: string) => void }) => {
  const field = useId()
  const [text, setText] = useState(id)
  useEffect(() => setText(id), [id])
  const problem = text === id
    ? undefined
    : !NODE_ID.test(text)
    ? "1-64 letters, digits, _ or -, starting with a letter or _"
    : taken(text)
    ? "Another node has this id"
    : undefined
  const commit = () => {
    if (text !== id && problem === undefined) onRename(text)
    else setText(id)
  }
  return (
    <div className={`field${problem !== undefined ? " invalid" : ""}`}>
      <label htmlFor={field}>Id</label>
      <input
        id={field}
        className="mono"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => e.key === "Enter" && commit()}
      />
      {problem !== undefined && <span className="error-text">{problem}</span>}
    </div>
  )
}

/**
 * A node's side panel: its name and id, then its type's configuration as a form generated from
 * the type's schema (agent steps get their type and version, instructions with references, and
 * knowledge bases), an optional pause for a person, and what is wrong with it.
 */
export const NodePanel = ({ node, findings, references, taken, onChange, onRemove, inRun }: {
  readonly node: DocNode
  readonly findings: ReadonlyArray<Finding>
  readonly references: ReadonlyArray<Reference>
  readonly taken: (id: string) => boolean
  readonly onChange: (next: DocNode, key: string) => void
  readonly onRemove: () => void
  /** The node's data in the run laid over the canvas. */
  readonly inRun?: ReactNode
}) => {
  const nameId = useId()
  const info = typeInfo(node.type)
  const problems = nodeProblems(node)
  const config = (info !== undefined && isRecord(node[info.configKey]) ? node[info.configKey] : {}) as Json
  const setConfig = (next: unknown, key: string) => info !== undefined && onChange({ ...node, [info.configKey]: next }, `${node.id}.${key}`)
  const within = (prefix: string) => new Map([...problems].filter(([p]) => p.startsWith(`${prefix}.`)).map(([p, m]) => [p.slice(prefix.length + 1), m]))
  return (
    <aside className="side-panel" aria-label={`Node ${node.name ?? node.id}`}>
      <header>
        <h2>{node.name ?? node.id}</h2>
        <span className="muted">{info?.label ?? node.type}</span>
      </header>
      {findings.length > 0 && (
        <ul className="findings" aria-label="Problems of this node">
          {findings.map((f, i) => (
            <li key={i} className={f.severity}>
              <strong>{f.severity === "error" ? "Blocks publishing" : "Warning"}</strong> {f.message} <span className="mono muted">{f.code}</span>
            </li>
          ))}
        </ul>
      )}
      {inRun}
      <div className="field">
        <label htmlFor={nameId}>Name</label>
        <input
          id={nameId}
          value={node.name ?? ""}
          onChange={(e) => onChange({ ...node, name: e.target.value === "" ? undefined : e.target.value } as DocNode, `${node.id}.name`)}
        />
      </div>
      <IdField id={node.id} taken={taken} onRename={(id) => onChange({ ...node, id }, `${node.id}.id`)} />
      {info === undefined
        ? <p className="error-text">This console does not know the node type '{node.type}'; its configuration is kept as it is.</p>
        : (
          <ObjectFields
            schema={info.schema}
            root={info.schema}
            value={config}
            path=""
            label={info.label}
            problems={within(info.configKey)}
            onChange={setConfig}
            custom={(path) => {
              if (node.type !== "agent") return undefined
              if (path === "agent_type") {return (
                  <AgentTypeFields key={path} config={config} onChange={setConfig} problem={problems.get("agent_config.type_version")} />
                )}
              if (path === "type_version" || path === "preset") return null
              if (path === "system_prompt_template") {
                return (
                  <InstructionsField
                    key={path}
                    value={typeof config.system_prompt_template === "string" ? config.system_prompt_template : ""}
                    references={references}
                    problem={problems.get("agent_config.system_prompt_template")}
                    onChange={(text) => setConfig({ ...config, system_prompt_template: text }, "system_prompt_template")}
                  />
                )
              }
              if (path === "knowledge_base_ids") {
                const ids = Array.isArray(config.knowledge_base_ids) ? config.knowledge_base_ids.map(String) : []
                return (
                  <KnowledgeField
                    key={path}
                    value={ids}
                    onChange={(next) =>
                      setConfig(next.length === 0 ? withoutKey(config, "knowledge_base_ids") : { ...config, knowledge_base_ids: next }, "knowledge_base_ids")}
                  />
                )
              }
              if (path === "action_ids") {
                const list = (k: string) => (Array.isArray(config[k]) ? (config[k] as ReadonlyArray<unknown>).map(String) : [])
                return (
                  <ToolsField
                    key={path}
                    actions={list("action_ids")}
                    servers={list("mcp_server_ids")}
                    onChange={(next) => {
                      const rest = withoutKey(withoutKey(config, "action_ids"), "mcp_server_ids")
                      setConfig({
                        ...rest,
                        ...(next.action_ids.length > 0 ? { action_ids: next.action_ids } : {}),
                        ...(next.mcp_server_ids.length > 0 ? { mcp_server_ids: next.mcp_server_ids } : {})
                      }, "tools")
                    }}
                  />
                )
              }
              if (path === "mcp_server_ids") return null
              return undefined
            }}
          />
        )}
      <fieldset className="field-group">
        <legend>
          <label className="check">
            <input
              type="checkbox"
              checked={node.hitl !== undefined}
              onChange={(e) =>
                onChange(
                  e.target.checked ? { ...node, hitl: { type: "approval", prompt: "", assignee: { role: "builder" } } } : withoutKey(node, "hitl") as DocNode,
                  `${node.id}.hitl.on`
                )}
            />{" "}
            Ask a person before this step
          </label>
        </legend>
        {node.hitl !== undefined && (
          <SchemaField
            schema={HITL_SCHEMA}
            root={HITL_SCHEMA}
            value={node.hitl}
            path="hitl"
            label="Pause"
            problems={problems}
            onChange={(next) => onChange({ ...node, hitl: next }, `${node.id}.hitl`)}
          />
        )}
      </fieldset>
      <button type="button" className="danger" onClick={onRemove}>Delete node</button>
    </aside>
  )
}

const withoutKey = (record: Json, key: string): Json => Object.fromEntries(Object.entries(record).filter(([k]) => k !== key))

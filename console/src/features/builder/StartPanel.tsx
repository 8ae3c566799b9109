import { useId } from "react"
import type { Finding } from "./Canvas"
import { isRecord, type Json } from "./dagDoc"

const TYPES = ["string", "number", "integer", "boolean", "array", "object"] as const

interface InputField {
  readonly name: string
  readonly schema: Json
  readonly required: boolean
}

const fieldsOf = (schema: Json): ReadonlyArray<InputField> => {
  const props = isRecord(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? schema.required : []
  return Object.entries(props).map(([name, s]) => ({ name, schema: isRecord(s) ? s : {}, required: required.includes(name) }))
}

const schemaOf = (base: Json, fields: ReadonlyArray<InputField>): Json => ({
  ...base,
  type: "object",
  properties: Object.fromEntries(fields.map((f) => [f.name, f.schema])),
  required: fields.filter((f) => f.required).map((f) => f.name)
})

const FieldRow = ({ field, index, onChange, onRemove }: {
  readonly field: InputField
  readonly index: number
  readonly onChange: (next: InputField, key: string) => void
  readonly onRemove: () => void
}) => {
  const id = useId()
  const set = (key: string, value: unknown) => {
    const { [key]: _, ...rest } = field.schema
    onChange({ ...field, schema: value === "" || value === undefined ? rest : { ...rest, [key]: value } }, `${index}.${key}`)
  }
  return (
    <li className="input-field">
      <div className="field">
        <label htmlFor={`${id}-name`}>Field name</label>
        <input
          id={`${id}-name`}
          className="mono"
          value={field.name}
          onChange={(e) => onChange({ ...field, name: e.target.value.replace(/[^A-Za-z0-9_]/g, "_") }, `${index}.name`)}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-type`}>Type</label>
        <select id={`${id}-type`} value={typeof field.schema.type === "string" ? field.schema.type : "string"} onChange={(e) => set("type", e.target.value)}>
          {TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-title`}>Label</label>
        <input id={`${id}-title`} value={typeof field.schema.title === "string" ? field.schema.title : ""} onChange={(e) => set("title", e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-choices`}>Choices (comma-separated)</label>
        <input
          id={`${id}-choices`}
          value={Array.isArray(field.schema.enum) ? field.schema.enum.join(", ") : ""}
          onChange={(e) => set("enum", e.target.value.trim() === "" ? undefined : e.target.value.split(",").map((v) => v.trim()))}
        />
      </div>
      <label className="check">
        <input type="checkbox" checked={field.required} onChange={(e) => onChange({ ...field, required: e.target.checked }, `${index}.required`)} /> Required
      </label>
      <button type="button" className="link" onClick={onRemove} aria-label={`Remove the field ${field.name}`}>Remove</button>
    </li>
  )
}

/**
 * The start node: the AI Employee's inputs (`input_schema`) edited as fields (name, type, label,
 * choices, required), so that nobody writes JSON Schema by hand for the common case.
 */
export const StartPanel = ({ schema, findings, onChange }: {
  readonly schema: Json
  readonly findings: ReadonlyArray<Finding>
  readonly onChange: (next: Json, key: string) => void
}) => {
  const fields = fieldsOf(schema)
  const put = (next: ReadonlyArray<InputField>, key: string) => onChange(schemaOf(schema, next), key)
  const fresh = () => {
    for (let i = fields.length + 1;; i++) if (!fields.some((f) => f.name === `field_${i}`)) return `field_${i}`
  }
  return (
    <aside className="side-panel" aria-label="Start: the inputs">
      <header>
        <h2>Start</h2>
        <span className="muted">What a run is given</span>
      </header>
      {findings.length > 0 && <ul className="findings">{findings.map((f, i) => <li key={i} className={f.severity}>{f.message}</li>)}</ul>}
      {fields.length === 0 && <p className="muted">No inputs: runs start with nothing. Add the fields a run needs.</p>}
      <ol className="input-fields">
        {fields.map((f, i) => (
          <FieldRow
            key={i}
            field={f}
            index={i}
            onChange={(next, key) => put(fields.map((g, j) => (j === i ? next : g)), `input.${key}`)}
            onRemove={() => put(fields.filter((_, j) => j !== i), `input.remove.${i}`)}
          />
        ))}
      </ol>
      <button type="button" onClick={() => put([...fields, { name: fresh(), schema: { type: "string" }, required: false }], `input.add.${fields.length}`)}>
        Add an input
      </button>
    </aside>
  )
}

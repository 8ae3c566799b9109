import { type FormEvent, useId, useState } from "react"

type Json = Record<string, unknown>
const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

interface Field {
  readonly name: string
  readonly schema: Json
  readonly required: boolean
}

const fieldsOf = (schema: unknown): ReadonlyArray<Field> => {
  if (!isRecord(schema) || !isRecord(schema.properties)) return []
  const required = Array.isArray(schema.required) ? schema.required : []
  return Object.entries(schema.properties).map(([name, s]) => ({ name, schema: isRecord(s) ? s : {}, required: required.includes(name) }))
}

const kindOf = (s: Json) =>
  Array.isArray(s.enum)
    ? "enum"
    : s.type === "boolean"
    ? "boolean"
    : s.type === "number" || s.type === "integer"
    ? "number"
    : s.type === "string"
    ? "string"
    : "json"

/** Each field's value from its text, by the field's schema; a JSON field that does not parse is an error. */
const parse = (field: Field, text: string): { value?: unknown; error?: string } => {
  if (text === "") return field.required && kindOf(field.schema) !== "boolean" ? { error: "Required" } : {}
  switch (kindOf(field.schema)) {
    case "number": {
      const n = Number(text)
      return Number.isNaN(n) || (field.schema.type === "integer" && !Number.isInteger(n))
        ? { error: `A${field.schema.type === "integer" ? "n integer" : " number"}` }
        : { value: n }
    }
    case "boolean":
      return { value: text === "true" }
    case "enum":
      // The offered value itself, number or string, as the schema lists it.
      return { value: (field.schema.enum as ReadonlyArray<unknown>).find((v) => String(v) === text) }
    case "json":
      try {
        return { value: JSON.parse(text) as unknown }
      } catch {
        return { error: "Not JSON" }
      }
    default:
      return { value: text }
  }
}

/**
 * A form generated from a JSON Schema object (a start node's input schema, a HITL form): text,
 * number, choice and yes/no fields by the schema's types, anything else as JSON.
 */
export const SchemaForm = ({ schema, submitLabel, busy, onSubmit, initial }: {
  readonly schema: unknown
  readonly submitLabel: string
  /** Values to start from (a past run's input), instead of the schema's defaults. */
  readonly initial?: Readonly<Record<string, unknown>> | undefined
  readonly busy?: boolean
  readonly onSubmit: (values: Json) => void
}) => {
  const id = useId()
  const fields = fieldsOf(schema)
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => {
      const start = initial?.[f.name] ?? f.schema.default
      return [f.name, start === undefined ? (kindOf(f.schema) === "boolean" ? "false" : "") : typeof start === "string" ? start : JSON.stringify(start)]
    }))
  )
  const [errors, setErrors] = useState<Record<string, string>>({})
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const parsed = fields.map((f) => [f.name, parse(f, texts[f.name] ?? "")] as const)
    const failed = Object.fromEntries(parsed.flatMap(([n, p]) => (p.error !== undefined ? [[n, p.error]] : [])))
    setErrors(failed)
    if (Object.keys(failed).length === 0) onSubmit(Object.fromEntries(parsed.flatMap(([n, p]) => ("value" in p ? [[n, p.value]] : []))))
  }
  return (
    <form className="schema-form" onSubmit={submit} noValidate>
      {fields.length === 0 && <p className="muted">No inputs.</p>}
      {fields.map((f) => {
        const fieldId = `${id}-${f.name}`
        const text = texts[f.name] ?? ""
        const set = (v: string) => setTexts((t) => ({ ...t, [f.name]: v }))
        const described = errors[f.name] !== undefined ? `${fieldId}-error` : undefined
        const title = typeof f.schema.title === "string" ? f.schema.title : f.name
        return (
          <div key={f.name} className="field">
            <label htmlFor={fieldId}>{title}{f.required ? " *" : ""}</label>
            {typeof f.schema.description === "string" && <span className="muted">{f.schema.description}</span>}
            {kindOf(f.schema) === "enum" ?
              (
                <select id={fieldId} value={text} onChange={(e) => set(e.target.value)} aria-describedby={described}>
                  <option value="">Choose…</option>
                  {(f.schema.enum as ReadonlyArray<unknown>).map((v) => <option key={String(v)} value={String(v)}>{String(v)}</option>)}
                </select>
              ) :
              kindOf(f.schema) === "boolean" ?
              <input id={fieldId} type="checkbox" checked={text === "true"} onChange={(e) => set(String(e.target.checked))} /> :
              kindOf(f.schema) === "json" ?
              <textarea id={fieldId} value={text} onChange={(e) => set(e.target.value)} rows={4} placeholder="JSON" aria-describedby={described} /> :
              (
                <input
                  id={fieldId}
                  type={kindOf(f.schema) === "number" ? "number" : "text"}
                  value={text}
                  onChange={(e) => set(e.target.value)}
                  aria-describedby={described}
                />
              )}
            {errors[f.name] !== undefined && <span id={`${fieldId}-error`} className="error-text">{errors[f.name]}</span>}
          </div>
        )
      })}
      <button type="submit" className="primary" disabled={busy === true}>{submitLabel}</button>
    </form>
  )
}

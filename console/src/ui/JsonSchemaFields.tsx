import { type ReactNode, useEffect, useId, useState } from "react"

type Json = Record<string, unknown>
const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** `system_prompt_template` as a person reads it: "System prompt template". */
export const labelOf = (name: string) => (name.charAt(0).toUpperCase() + name.slice(1)).replace(/_/g, " ")

interface Props {
  readonly schema: Json
  /** The root schema, whose `$defs` a `$ref` names. */
  readonly root: Json
  readonly value: unknown
  /** `key` names the field, so that typing in one field is one step of undo. */
  readonly onChange: (next: unknown, key: string) => void
  readonly path: string
  readonly label: string
  readonly required?: boolean
  /** Messages about this field or anything under it, by path (`to`, `reminders.max`). */
  readonly problems?: ReadonlyMap<string, string>
  /** Fields drawn by the caller instead (by path). */
  readonly custom?: (path: string) => ReactNode | undefined
}

const resolve = (schema: Json, root: Json): Json => {
  const ref = schema.$ref
  if (typeof ref !== "string") return schema
  const name = ref.replace(/^#\/\$defs\//, "")
  const defs = isRecord(root.$defs) ? root.$defs : {}
  return isRecord(defs[name]) ? resolve(defs[name], root) : {}
}

const variants = (schema: Json) => (Array.isArray(schema.anyOf) ? schema.anyOf.filter(isRecord) : [])

/** A union of objects told apart by the one key each requires (`{user_email}` / `{role}` / `{group_id}`), or by a literal `operation`. */
const objectVariants = (schema: Json, root: Json) => {
  const vs = variants(schema).map((v) => resolve(v, root))
  return vs.length > 1 && vs.every((v) => v.type === "object" && isRecord(v.properties)) ? vs : undefined
}

const variantName = (v: Json) => {
  const props = isRecord(v.properties) ? v.properties : {}
  for (const p of Object.values(props)) if (isRecord(p) && Array.isArray(p.enum) && p.enum.length === 1) return `${String(p.enum[0])}`
  return Array.isArray(v.required) && typeof v.required[0] === "string" ? labelOf(v.required[0]) : "Option"
}

const matches = (v: Json, value: unknown) => {
  if (!isRecord(value)) return false
  const props = isRecord(v.properties) ? v.properties : {}
  return Object.entries(props).every(([k, p]) => !(isRecord(p) && Array.isArray(p.enum) && p.enum.length === 1) || value[k] === p.enum[0]) &&
    (Array.isArray(v.required) ? v.required : []).every((k) => typeof k === "string" && (k in value || (isRecord(props[k]) && Array.isArray(props[k].enum))))
}

const firstOf = (v: Json): Json => {
  const props = isRecord(v.properties) ? v.properties : {}
  return Object.fromEntries(
    Object.entries(props).flatMap(([k, p]) =>
      isRecord(p) && Array.isArray(p.enum) && p.enum.length === 1 ? [[k, p.enum[0]]] : (Array.isArray(v.required) && v.required.includes(k) ? [[k, ""]] : [])
    )
  )
}

/** A value edited as JSON text: kept as typed until it parses. */
const JsonText = (
  { id, value, onChange, describedBy }: { readonly id: string; readonly value: unknown; readonly onChange: (v: unknown) => void; readonly describedBy?: string }
) => {
  const shown = value === undefined ? "" : JSON.stringify(value, null, 2)
  const [text, setText] = useState(shown)
  const [bad, setBad] = useState(false)
  useEffect(() => {
    // Undo or another edit replaced the value: show it, unless it is what the text already says.
    setText((t) => {
      try {
        return JSON.stringify(t === "" ? undefined : JSON.parse(t)) === JSON.stringify(value) ? t : shown
      } catch {
        return shown
      }
    })
  }, [shown, value])
  return (
    <>
      <textarea
        id={id}
        rows={Math.min(10, Math.max(3, text.split("\n").length))}
        className="mono"
        value={text}
        aria-invalid={bad}
        aria-describedby={describedBy}
        onChange={(e) => {
          setText(e.target.value)
          if (e.target.value.trim() === "") {
            setBad(false)
            onChange(undefined)
            return
          }
          try {
            const parsed: unknown = JSON.parse(e.target.value)
            setBad(false)
            onChange(parsed)
          } catch {
            setBad(true)
          }
        }}
      />
      {bad && <span className="error-text">Not JSON yet: the last valid value is kept</span>}
    </>
  )
}

/**
 * The fields of a JSON Schema (what `JSONSchema.make` gives for the schemas the server validates
 * with): text, numbers, choices and yes/no by type, a fieldset for an object, a choice of variant
 * for a union, lists of text one per line, anything else as JSON.
 */
export const SchemaField = (props: Props) => {
  const { root, value, onChange, path, label, required, problems, custom } = props
  const id = useId()
  const drawn = custom?.(path)
  if (drawn !== undefined) return <>{drawn}</>
  const schema = resolve(props.schema, root)
  const problem = problems?.get(path)
  const describedBy = problem !== undefined ? `${id}-problem` : undefined
  const title = `${label}${required === true ? " *" : ""}`
  const note = problem !== undefined ? <span id={`${id}-problem`} className="error-text">{problem}</span> : null
  const set = (v: unknown) => onChange(v, path)

  const union = objectVariants(schema, root)
  if (union !== undefined) {
    const at = Math.max(0, union.findIndex((v) => matches(v, value)))
    return (
      <fieldset className="field-group">
        <legend>{title}</legend>
        <label className="field">
          <span>Kind</span>
          <select value={String(at)} onChange={(e) => set(firstOf(union[Number(e.target.value)]))}>
            {union.map((v, i) => <option key={i} value={i}>{variantName(v)}</option>)}
          </select>
        </label>
        <ObjectFields {...props} schema={union[at]} value={isRecord(value) ? value : firstOf(union[at])} />
        {note}
      </fieldset>
    )
  }
  if (schema.type === "object" && isRecord(schema.properties) && Object.keys(schema.properties).length > 0) {
    return (
      <fieldset className="field-group">
        <legend>{title}</legend>
        <ObjectFields {...props} schema={schema} value={isRecord(value) ? value : {}} />
        {note}
      </fieldset>
    )
  }
  const textual = variants(schema).some((v) => resolve(v, root).type === "string")
  const control = Array.isArray(schema.enum)
    ? (
      <select
        id={id}
        value={value === undefined ? "" : String(value)}
        aria-describedby={describedBy}
        onChange={(e) => set(e.target.value === "" ? undefined : (schema.enum as ReadonlyArray<unknown>).find((v) => String(v) === e.target.value))}
      >
        <option value="">{required === true ? "Choose…" : "—"}</option>
        {(schema.enum as ReadonlyArray<unknown>).map((v) => <option key={String(v)} value={String(v)}>{String(v)}</option>)}
      </select>
    )
    : schema.type === "boolean"
    ? <input id={id} type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked)} />
    : schema.type === "number" || schema.type === "integer"
    ? (
      <input
        id={id}
        type="number"
        step={schema.type === "integer" ? 1 : "any"}
        value={typeof value === "number" ? value : ""}
        aria-describedby={describedBy}
        onChange={(e) => set(e.target.value === "" ? undefined : Number(e.target.value))}
      />
    )
    : schema.type === "array" && isRecord(schema.items) && resolve(schema.items, root).type === "string"
    ? (
      <textarea
        id={id}
        rows={3}
        placeholder="One a line"
        value={Array.isArray(value) ? value.join("\n") : ""}
        aria-describedby={describedBy}
        onChange={(e) => set(e.target.value === "" ? undefined : e.target.value.split("\n"))}
      />
    )
    : schema.type === "string" || (textual && (typeof value === "string" || value === undefined))
    ? (/body|prompt|summary|template|instructions/.test(path)
      ? <textarea id={id} rows={4} value={typeof value === "string" ? value : ""} aria-describedby={describedBy} onChange={(e) => set(e.target.value)} />
      : <input id={id} type="text" value={typeof value === "string" ? value : ""} aria-describedby={describedBy} onChange={(e) => set(e.target.value)} />)
    : <JsonText id={id} value={value} onChange={set} {...(describedBy !== undefined ? { describedBy } : {})} />
  return (
    <div className={`field${problem !== undefined ? " invalid" : ""}`}>
      <label htmlFor={id}>{title}</label>
      {control}
      {note}
    </div>
  )
}

/** An object's properties, each a field; a property left empty is left out of the value. */
export const ObjectFields = (props: Props) => {
  const { schema, root, value, onChange, path } = props
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? schema.required : []
  const current = isRecord(value) ? value : {}
  return (
    <>
      {Object.entries(properties).filter(([, s]) => isRecord(s)).map(([name, s]) => (
        <SchemaField
          {...props}
          key={name}
          schema={s as Json}
          root={root}
          value={current[name]}
          path={path === "" ? name : `${path}.${name}`}
          label={labelOf(name)}
          required={required.includes(name)}
          onChange={(next, key) => {
            const { [name]: _, ...others } = current
            onChange(next === undefined ? others : { ...others, [name]: next }, key)
          }}
        />
      ))}
    </>
  )
}

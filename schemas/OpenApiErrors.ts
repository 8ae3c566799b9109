import { ErrorTags } from "./Errors.js"

type Json = Record<string, unknown>
const tags: ReadonlyArray<string> = ErrorTags

const isErrorSchema = (schema: Json) => {
  const props = schema.properties as Json | undefined
  const tag = props?._tag as Json | undefined
  const values = (tag?.enum as ReadonlyArray<unknown> | undefined) ?? (tag?.const !== undefined ? [tag.const] : [])
  return values.some((v) => typeof v === "string" && tags.includes(v))
}

/** Documents errors as they go out on the wire: no `_tag`, plus `request_id`. */
export const flattenErrorSchemas = (spec: Json): Json => {
  const components = spec.components as Json | undefined
  const schemas = components?.schemas as Record<string, Json> | undefined
  if (schemas === undefined) return spec
  for (const schema of Object.values(schemas)) {
    if (!isErrorSchema(schema)) continue
    const props = { ...(schema.properties as Json) }
    delete props._tag
    props.request_id = { type: "string", description: "Also sent as the X-Request-Id header" }
    schema.properties = props
    schema.required = [...((schema.required as ReadonlyArray<string> | undefined) ?? []).filter((r) => r !== "_tag"), "request_id"]
  }
  return spec
}

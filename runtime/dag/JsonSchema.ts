import Ajv from "ajv"

const ajv = new Ajv.default({ allErrors: true, strict: false })

export interface SchemaProblem {
  readonly path: string
  readonly message: string
}

type Validator = ReturnType<typeof ajv.compile>

const MAX_CACHED = 500
/**
 * Compiled validators by the schema's JSON text. ajv's own cache is keyed by the schema object,
 * so schemas read from rows (a new object each time) would be compiled on every call and kept
 * forever; each compiled schema is removed from ajv and kept here, the oldest dropped first.
 */
const compiled = new Map<string, Validator | string>()

const validatorOf = (schema: object): Validator | string => {
  const key = JSON.stringify(schema)
  const hit = compiled.get(key)
  if (hit !== undefined) return hit
  let made: Validator | string
  try {
    made = ajv.compile(schema)
    ajv.removeSchema(schema)
  } catch (error) {
    made = `invalid JSON schema: ${String((error as Error).message)}`
  }
  if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value!)
  compiled.set(key, made)
  return made
}

/** Validates a value against a JSON Schema (ajv); an unusable schema is itself a problem. */
export const checkJsonSchema = (schema: unknown, value: unknown): ReadonlyArray<SchemaProblem> => {
  if (schema === null || typeof schema !== "object") return [{ path: "", message: "schema is not an object" }]
  const validate = validatorOf(schema)
  if (typeof validate === "string") return [{ path: "", message: validate }]
  if (validate(value)) return []
  return (validate.errors ?? []).map((e) => ({ path: e.instancePath, message: e.message ?? "invalid" }))
}

/** Whether a schema compiles: input schemas are checked once at save and publish. */
export const isValidJsonSchema = (schema: unknown): boolean => schema !== null && typeof schema === "object" && ajv.validateSchema(schema) === true

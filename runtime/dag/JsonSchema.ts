import Ajv from "ajv"

const ajv = new Ajv.default({ allErrors: true, strict: false })

export interface SchemaProblem {
  readonly path: string
  readonly message: string
}

/** Validates a value against a JSON Schema (ajv); an unusable schema is itself a problem. */
export const checkJsonSchema = (schema: unknown, value: unknown): ReadonlyArray<SchemaProblem> => {
  if (schema === null || typeof schema !== "object") return [{ path: "", message: "schema is not an object" }]
  let validate
  try {
    validate = ajv.compile(schema)
  } catch (error) {
    return [{ path: "", message: `invalid JSON schema: ${String((error as Error).message)}` }]
  }
  if (validate(value)) return []
  return (validate.errors ?? []).map((e) => ({ path: e.instancePath, message: e.message ?? "invalid" }))
}

/** Whether a schema compiles: input schemas are checked once at save and publish. */
export const isValidJsonSchema = (schema: unknown): boolean =>
  schema !== null && typeof schema === "object" && ajv.validateSchema(schema) === true

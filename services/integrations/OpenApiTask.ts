import SwaggerParser from "@apidevtools/swagger-parser"
import YAML from "yaml"
import { refuse } from "../../platform/workers/TaskRefusal.js"
import type { FunctionDefinition, IntegrationAuth } from "../../schemas/Integration.js"
import { isRecord } from "../../schemas/Records.js"
import { expandedSize, resolvePointer } from "./SpecExpansion.js"

// Runs on a thread of the worker pool (platform/workers): never on the event loop that serves requests.

type Json = Record<string, unknown>

const METHODS = ["get", "post", "put", "patch", "delete"] as const

/** A dereferenced document larger than this is refused before anything expands it. */
export const MAX_DEREFERENCED_BYTES = 20 * 1024 * 1024

const invalid = (message: string) => refuse("INVALID_SPEC", message)

/** JSON or YAML text, or an object already. */
const parseSpecText = (spec: string | Json): Json => {
  if (typeof spec !== "string") return spec
  let doc: unknown
  try {
    doc = YAML.parse(spec, { maxAliasCount: 100 })
  } catch (error) {
    return invalid(`The document is neither JSON nor YAML: ${error instanceof Error ? error.message : String(error)}`)
  }
  return isRecord(doc) ? doc : invalid("The document is not an object")
}

/** A schema that is only a `$ref` (left so because it is circular): what it points at. */
const followRef = (doc: Json, schema: Json): Json | undefined => {
  if (typeof schema.$ref !== "string") return schema
  const target = resolvePointer(doc, schema.$ref)
  return isRecord(target) ? target : undefined
}

/** Circular `$ref`s left in a function's input schema accept anything there (the schema cannot name them). */
const withoutRefs = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutRefs)
  if (!isRecord(node)) return node
  if (typeof node.$ref === "string") return { description: `Any value (recursive: ${node.$ref})` }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withoutRefs(v)]))
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9_.-]+/g, "_").replace(/^[^a-z0-9]+/, "").replace(/_+$/g, "").slice(0, 100) || "operation"

/** The first security scheme as our auth, when the document names one. */
const authOf = (doc: Json): IntegrationAuth => {
  const schemes = isRecord(doc.components) && isRecord(doc.components.securitySchemes) ? Object.values(doc.components.securitySchemes) : []
  for (const scheme of schemes.filter(isRecord)) {
    if (scheme.type === "apiKey" && typeof scheme.name === "string" && (scheme.in === "header" || scheme.in === "query")) {
      return { type: "api_key", in: scheme.in, name: scheme.name }
    }
    if (scheme.type === "http" && String(scheme.scheme).toLowerCase() === "bearer") return { type: "bearer" }
    if (scheme.type === "http" && String(scheme.scheme).toLowerCase() === "basic") return { type: "basic" }
    const code = isRecord(scheme.flows) && isRecord(scheme.flows.authorizationCode) ? scheme.flows.authorizationCode : undefined
    if (scheme.type === "oauth2" && code !== undefined && typeof code.authorizationUrl === "string" && typeof code.tokenUrl === "string") {
      return { type: "oauth2", authorize_url: code.authorizationUrl, token_url: code.tokenUrl, scopes: isRecord(code.scopes) ? Object.keys(code.scopes) : [] }
    }
  }
  return { type: "none" }
}

/**
 * One http function per operation of a dereferenced OpenAPI 3 document: `operationId` (else
 * method and path) names it; path parameters, then query parameters (GET, DELETE) or the JSON
 * request body's properties make its input schema.
 */
const functionsOf = (doc: Json): Array<FunctionDefinition> => {
  const out: Array<FunctionDefinition> = []
  const names = new Set<string>()
  const paths = isRecord(doc.paths) ? doc.paths : {}
  for (const [path, item] of Object.entries(paths)) {
    if (!isRecord(item)) continue
    for (const method of METHODS) {
      const op = item[method]
      if (!isRecord(op)) continue
      const params = [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(op.parameters) ? op.parameters : [])].filter(isRecord)
      const properties: Json = {}
      const required: Array<string> = []
      for (const p of params) {
        if (typeof p.name !== "string" || (p.in !== "path" && p.in !== "query")) continue
        if (p.in === "query" && method !== "get" && method !== "delete") continue
        properties[p.name] = {
          ...(isRecord(p.schema) ? p.schema : { type: "string" }),
          ...(typeof p.description === "string" ? { description: p.description } : {})
        }
        if (p.required === true || p.in === "path") required.push(p.name)
      }
      const body = isRecord(op.requestBody) && isRecord(op.requestBody.content) ? op.requestBody.content["application/json"] : undefined
      const bodySchema = isRecord(body) && isRecord(body.schema) ? followRef(doc, body.schema) : undefined
      if (bodySchema !== undefined && isRecord(bodySchema.properties)) {
        Object.assign(properties, bodySchema.properties)
        if (Array.isArray(bodySchema.required)) required.push(...bodySchema.required.filter((r): r is string => typeof r === "string"))
      }
      let name = slug(typeof op.operationId === "string" ? op.operationId : `${method}_${path}`)
      for (let n = 2; names.has(name); n++) name = `${name}_${n}`
      names.add(name)
      out.push({
        name,
        kind: "http",
        method: method.toUpperCase() as "GET",
        path,
        description: String(op.summary ?? op.description ?? `${method.toUpperCase()} ${path}`),
        input_schema: withoutRefs({ type: "object", properties, ...(required.length > 0 ? { required: [...new Set(required)] } : {}) }) as Json,
        side_effects: method !== "get"
      })
    }
  }
  return out
}

/**
 * Validates and dereferences an OpenAPI 3.0 or 3.1 document (internal `$ref`s only: external ones
 * would be fetches the outbound guard does not see) and reads its functions, first server and
 * auth. Its size with every `$ref` expanded is measured first, without expanding anything (a few
 * kilobytes of schemas that each refer twice to the next expand to gigabytes); circular `$ref`s
 * stay `$ref`s.
 */
export const importOpenApi = async (spec: string | Json) => {
  const doc = parseSpecText(spec)
  if (typeof doc.openapi !== "string" || !/^3\.[01]\./.test(doc.openapi)) {
    return invalid("Only OpenAPI 3.0 and 3.1 documents are imported (the `openapi` field)")
  }
  const size = expandedSize(doc, MAX_DEREFERENCED_BYTES)
  if (size > MAX_DEREFERENCED_BYTES) {
    return refuse("INPUT_LIMIT_EXCEEDED", `The document is larger than ${MAX_DEREFERENCED_BYTES / 1024 / 1024} MiB with its $refs dereferenced`)
  }
  let api: unknown
  try {
    api = await SwaggerParser.validate(doc as unknown as Parameters<typeof SwaggerParser.validate>[0], {
      resolve: { external: false },
      dereference: { circular: "ignore" }
    })
  } catch (error) {
    return invalid(error instanceof Error ? error.message : String(error))
  }
  const dereferenced = api as Json
  const servers = Array.isArray(dereferenced.servers) ? dereferenced.servers.filter(isRecord) : []
  const functions = functionsOf(dereferenced)
  if (functions.length === 0) return invalid("The document has no operations")
  return {
    functions,
    server: typeof servers[0]?.url === "string" ? servers[0].url : undefined,
    auth: authOf(dereferenced),
    title: isRecord(dereferenced.info) && typeof dereferenced.info.title === "string" ? dereferenced.info.title : undefined
  }
}

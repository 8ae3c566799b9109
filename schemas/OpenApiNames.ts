import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as Agent from "./Agent.js"
import * as Auth from "./Auth.js"
import * as Chat from "./Chat.js"
import * as Dag from "./Dag.js"
import * as Docgen from "./Docgen.js"
import * as DocumentTrigger from "./DocumentTrigger.js"
import * as Eval from "./Eval.js"
import * as InboundEmail from "./InboundEmail.js"
import * as Integration from "./Integration.js"
import * as Knowledge from "./Knowledge.js"
import * as LlmProvider from "./LlmProvider.js"
import * as McpServer from "./McpServer.js"
import * as Nudge from "./Nudge.js"
import * as Pagination from "./Pagination.js"
import * as PublishBlockers from "./PublishBlockers.js"
import * as Records from "./Records.js"
import * as Run from "./Run.js"
import * as Schedule from "./Schedule.js"
import * as Tenant from "./Tenant.js"
import * as Ticketing from "./Ticketing.js"
import * as Trace from "./Trace.js"
import * as Version from "./Version.js"
import * as VoiceTree from "./VoiceTree.js"
import * as Webhook from "./Webhook.js"
import * as Workflow from "./Workflow.js"

type Json = Record<string, unknown>

/** The modules whose exported schemas are the API's resources, by the names they are exported as. */
const MODULES: ReadonlyArray<Record<string, unknown>> = [
  Agent,
  Auth,
  Chat,
  Dag,
  Docgen,
  DocumentTrigger,
  Eval,
  InboundEmail,
  Integration,
  Knowledge,
  LlmProvider,
  McpServer,
  Nudge,
  Pagination,
  PublishBlockers,
  Records,
  Run,
  Schedule,
  Tenant,
  Ticketing,
  Trace,
  Version,
  VoiceTree,
  Webhook,
  Workflow
]

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Json).sort(([a], [b]) => a.localeCompare(b)))
      : v)

const isObjectSchema = (schema: Json) => schema.type === "object" || schema.anyOf !== undefined || schema.allOf !== undefined

/**
 * Every exported struct-like schema rendered exactly as the OpenAPI generator renders a response
 * body (one throwaway endpoint each), keyed by that rendering: an inline body equal to one of
 * them is that resource. Made when the document is (0.1 s), not as the module loads: a process
 * started from the build reads the document the build made.
 */
let knownResourcesMade: Map<string, string> | undefined
const knownResources = (): Map<string, string> => (knownResourcesMade ??= makeKnownResources())
const makeKnownResources = () => {
  const names: Array<string> = []
  const endpoints: Array<HttpApiEndpoint.HttpApiEndpoint.Any> = []
  for (const module of MODULES) {
    for (const [name, value] of Object.entries(module)) {
      if (!Schema.isSchema(value) || names.includes(name)) continue
      names.push(name)
      endpoints.push(HttpApiEndpoint.get(name, `/${name}`).addSuccess(value as Schema.Schema<unknown, unknown, never>))
    }
  }
  const group = endpoints.reduce<HttpApiGroup.HttpApiGroup.Any>(
    (g, endpoint) => (g as HttpApiGroup.HttpApiGroup<"resources", HttpApiEndpoint.HttpApiEndpoint.Any>).add(endpoint),
    HttpApiGroup.make("resources")
  )
  const spec = OpenApi.fromApi(
    HttpApi.make("resources").add(group as HttpApiGroup.HttpApiGroup<"resources", HttpApiEndpoint.HttpApiEndpoint.Any>)
  ) as unknown as { paths: Record<string, { get: Json }> }
  const byShape = new Map<string, string>()
  for (const name of names) {
    const content = ((spec.paths[`/${name}`]?.get.responses as Json | undefined)?.["200"] as Json | undefined)?.content as Json | undefined
    const schema = (content?.["application/json"] as Json | undefined)?.schema as Json | undefined
    if (schema === undefined || !isObjectSchema(schema) || schema.$ref !== undefined) continue
    const key = canonical(schema)
    if (!byShape.has(key)) byShape.set(key, name)
  }
  return byShape
}

const pascal = (text: string) => text.split(/[^A-Za-z0-9]+/).filter((w) => w !== "").map((w) => w[0].toUpperCase() + w.slice(1)).join("")

/**
 * Names every request and response body: an inline object schema becomes a component, named as
 * the resource it is (its export name in schemas/) or, failing that, after its operation
 * (`RunsCancelResponse`); arrays name their items the same way.
 */
export const nameBodySchemas = (spec: Json): Json => {
  const components = (spec.components as Json | undefined) ?? {}
  const schemas = ((components.schemas as Json | undefined) ?? {}) as Record<string, Json>
  const hoist = (schema: Json, fallback: string): Json => {
    if (schema.type === "array" && schema.items !== undefined && typeof schema.items === "object") {
      return { ...schema, items: hoist(schema.items as Json, `${fallback}Item`) }
    }
    if (schema.$ref !== undefined || !isObjectSchema(schema)) return schema
    const key = canonical(schema)
    let name = knownResources().get(key) ?? fallback
    while (schemas[name] !== undefined && canonical(schemas[name]) !== key) name = `${name}_`
    schemas[name] = schema
    return { $ref: `#/components/schemas/${name}` }
  }
  for (const item of Object.values((spec.paths as Record<string, Json> | undefined) ?? {})) {
    for (const operation of Object.values(item)) {
      if (operation === null || typeof operation !== "object") continue
      const op = operation as Json
      const id = pascal(String(op.operationId ?? ""))
      const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined
      for (const media of Object.values(body ?? {})) {
        if (media.schema !== undefined) media.schema = hoist(media.schema as Json, `${id}Request`)
      }
      for (const [status, response] of Object.entries((op.responses as Record<string, Json> | undefined) ?? {})) {
        if (!status.startsWith("2")) continue
        for (const media of Object.values((response.content as Record<string, Json> | undefined) ?? {})) {
          if (media.schema !== undefined) media.schema = hoist(media.schema as Json, `${id}Response`)
        }
      }
    }
  }
  return { ...spec, components: { ...components, schemas } }
}

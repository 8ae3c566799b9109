import { Schema } from "effect"
import { DateTimeParam, PageParams } from "./Pagination.js"

const JsonSchemaObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const Slug = Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9_.-]{0,99}$/), Schema.annotations({ description: "lowercase letters, digits, `_`, `.`, `-`" }))

/** How calls to an entry's API carry the tenant's credentials (00-decisions section 10). */
export const IntegrationAuth = Schema.Union(
  Schema.Struct({ type: Schema.Literal("none") }),
  Schema.Struct({
    type: Schema.Literal("api_key"),
    in: Schema.optionalWith(Schema.Literal("header", "query"), { default: () => "header" as const }),
    name: Schema.String
  }),
  Schema.Struct({ type: Schema.Literal("bearer") }),
  Schema.Struct({ type: Schema.Literal("basic") }),
  Schema.Struct({
    type: Schema.Literal("oauth2"),
    authorize_url: Schema.String,
    token_url: Schema.String,
    scopes: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
  })
)
export type IntegrationAuth = typeof IntegrationAuth.Type

const functionBase = {
  name: Slug,
  description: Schema.optionalWith(Schema.String, { default: () => "" }),
  input_schema: Schema.optionalWith(JsonSchemaObject, { default: () => ({ type: "object", properties: {} }) }),
  /** A function that changes the world is not invoked in dry runs (default: anything but GET). */
  side_effects: Schema.optional(Schema.Boolean)
}

export const FunctionDefinition = Schema.Union(
  Schema.Struct({
    ...functionBase,
    kind: Schema.Literal("http"),
    method: Schema.Literal("GET", "POST", "PUT", "PATCH", "DELETE"),
    /** A path template on the entry's base_url (`/orders/{id}`): inputs fill its parameters, then the query (GET, DELETE) or the JSON body. */
    path: Schema.String
  }),
  Schema.Struct({
    ...functionBase,
    kind: Schema.Literal("script"),
    /** JavaScript run in a sandbox: `input` is the call's input; the value of the last expression (or `return`) is the output. */
    source: Schema.String
  })
)
export type FunctionDefinition = typeof FunctionDefinition.Type

/** POST /catalog: an entry authored by an administrator (custom to the workspace). */
export const CatalogEntryRequest = Schema.Struct({
  name: Slug,
  /** custom (default): this workspace's; catalog: offered to every workspace (env_admin only). */
  scope: Schema.optionalWith(Schema.Literal("catalog", "custom"), { default: () => "custom" as const }),
  display_name: Schema.optional(Schema.String),
  category: Schema.optionalWith(Schema.String, { default: () => "custom" }),
  base_url: Schema.optional(Schema.String),
  auth: Schema.optionalWith(IntegrationAuth, { default: () => ({ type: "none" as const }) }),
  functions: Schema.Array(FunctionDefinition)
})

export const ImportSpecRequest = Schema.Struct({
  name: Slug,
  scope: Schema.optionalWith(Schema.Literal("catalog", "custom"), { default: () => "custom" as const }),
  display_name: Schema.optional(Schema.String),
  category: Schema.optionalWith(Schema.String, { default: () => "custom" }),
  /** An OpenAPI 3.0 or 3.1 document, as an object or as JSON/YAML text. */
  spec: Schema.optional(Schema.Union(Schema.String, JsonSchemaObject)),
  spec_url: Schema.optional(Schema.String),
  /** Overrides the document's first server. */
  base_url: Schema.optional(Schema.String),
  auth: Schema.optional(IntegrationAuth)
})

export const CatalogFunction = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  description: Schema.String,
  kind: Schema.Literal("http", "script"),
  method: Schema.optional(Schema.String),
  path: Schema.optional(Schema.String),
  input_schema: JsonSchemaObject,
  side_effects: Schema.Boolean
})

export const CatalogEntry = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  display_name: Schema.String,
  category: Schema.String,
  scope: Schema.Literal("catalog", "custom"),
  base_url: Schema.NullOr(Schema.String),
  auth: IntegrationAuth,
  functions: Schema.Array(CatalogFunction),
  created_at: Schema.Date
})
export type CatalogEntry = typeof CatalogEntry.Type

export const CatalogList = Schema.Struct({ items: Schema.Array(CatalogEntry) })

export const InstallRequest = Schema.Struct({
  catalog_id: Schema.UUID,
  /** Free-form package or plan label kept with the install. */
  package: Schema.optional(Schema.String)
})

export const TenantIntegration = Schema.Struct({
  id: Schema.UUID,
  catalog_id: Schema.UUID,
  name: Schema.String,
  display_name: Schema.String,
  category: Schema.String,
  package: Schema.NullOr(Schema.String),
  status: Schema.Literal("active", "disabled", "pending"),
  enabled_functions: Schema.Array(Schema.String),
  has_data_source_credentials: Schema.Boolean,
  has_agent_tool_credentials: Schema.Boolean,
  has_active_connections: Schema.Boolean,
  created_at: Schema.Date
})
export type TenantIntegration = typeof TenantIntegration.Type

export const TenantIntegrationList = Schema.Struct({ items: Schema.Array(TenantIntegration) })

export const Capability = Schema.Literal("data_source", "agent_tool")

export const CredentialsRequest = Schema.Struct({
  capability: Capability,
  credentials: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

export const Capabilities = Schema.Struct({
  items: Schema.Array(Schema.Struct({
    integration_id: Schema.UUID,
    name: Schema.String,
    category: Schema.String,
    capabilities: Schema.Array(Capability),
    configured: Schema.Array(Capability)
  }))
})

export const CallableFunction = Schema.Struct({
  function_id: Schema.UUID,
  function_name: Schema.String,
  integration_id: Schema.UUID,
  integration_name: Schema.String,
  description: Schema.String,
  input_schema: JsonSchemaObject,
  side_effects: Schema.Boolean
})

export const CallableFunctions = Schema.Struct({ items: Schema.Array(CallableFunction) })

export const ExecuteRequest = Schema.Struct({
  function_id: Schema.optional(Schema.UUID),
  /** `<integration name>.<function name>`, or the function name when only one installed integration has it. */
  function_name: Schema.optional(Schema.String),
  input: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) })
})

export const ExecutionResult = Schema.Struct({
  execution_id: Schema.UUID,
  status: Schema.Literal("success", "error"),
  output: Schema.optional(Schema.Unknown),
  duration_ms: Schema.Number,
  error: Schema.optional(Schema.String)
})

export const Execution = Schema.Struct({
  ...ExecutionResult.fields,
  integration_id: Schema.UUID,
  function_id: Schema.UUID,
  function_name: Schema.String,
  input: Schema.Unknown,
  logs: Schema.NullOr(Schema.String),
  http_status: Schema.NullOr(Schema.Number),
  run_id: Schema.NullOr(Schema.String),
  created_at: Schema.Date
})

export const ExecutionListParams = Schema.Struct({
  ...PageParams.fields,
  integration_id: Schema.optional(Schema.UUID),
  function_id: Schema.optional(Schema.UUID),
  from: Schema.optional(DateTimeParam),
  to: Schema.optional(DateTimeParam)
})

export const OAuthAuthorizeRequest = Schema.Struct({
  /** Where the authorization server sends the browser back with `code` and `state` (default PUBLIC_BASE_URL/integrations/oauth2/callback). */
  redirect_uri: Schema.optional(Schema.String)
})

export const OAuthAuthorization = Schema.Struct({
  authorization_url: Schema.String,
  state: Schema.String,
  expires_at: Schema.Date
})

export const OAuthCallbackRequest = Schema.Struct({ code: Schema.String, state: Schema.String })

/** The calling user's connection: never the tokens themselves. */
export const OAuthConnection = Schema.Struct({
  integration_id: Schema.UUID,
  connected: Schema.Boolean,
  scope: Schema.NullOr(Schema.String),
  expires_at: Schema.NullOr(Schema.Date),
  has_refresh_token: Schema.Boolean,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

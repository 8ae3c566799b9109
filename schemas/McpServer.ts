import { Schema } from "effect"

export const McpTransport = Schema.Literal("stdio", "sse", "streamable-http")
export const McpAuthType = Schema.Literal("none", "api_key", "bearer_token", "basic_auth", "oauth2", "oauth2_authcode")
export const McpStatus = Schema.Literal("pending_review", "active", "disabled")

/** POST /mcp-servers: no credentials here (PATCH sets them, sealed). */
export const McpServerCreate = Schema.Struct({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  /** An http(s) URL; for `stdio`, the command line, whose program must be listed in MCP_STDIO_COMMANDS. */
  server_url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000)),
  transport: Schema.optionalWith(McpTransport, { default: () => "streamable-http" as const }),
  auth_type: Schema.optionalWith(McpAuthType, { default: () => "none" as const }),
  description: Schema.optional(Schema.String)
})

/**
 * Credentials by auth type: api_key `{api_key, header?}` (default header X-API-Key), bearer_token
 * `{token}`, basic_auth `{username, password}`, oauth2 `{token_url, client_id, client_secret,
 * scope?}` (client credentials), oauth2_authcode `{integration_id}` (the calling user's OAuth
 * connection to that integration).
 */
export const McpServerPatch = Schema.Struct({
  name: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))),
  server_url: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000))),
  transport: Schema.optional(McpTransport),
  auth_type: Schema.optional(McpAuthType),
  description: Schema.optional(Schema.String),
  credentials: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

export const McpTool = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  input_schema: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

export const McpServer = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  server_url: Schema.String,
  transport: McpTransport,
  auth_type: McpAuthType,
  status: McpStatus,
  has_credentials: Schema.Boolean,
  tool_count: Schema.Number,
  tools_refreshed_at: Schema.NullOr(Schema.Date),
  /** Why the last tool discovery failed, if it did. */
  discovery_error: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type McpServer = typeof McpServer.Type

export const McpServerList = Schema.Struct({ items: Schema.Array(McpServer) })
export const McpToolList = Schema.Struct({ items: Schema.Array(McpTool) })

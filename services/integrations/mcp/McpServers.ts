import { SqlClient } from "@effect/sql"
import { Effect, Either, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { fetch as undiciFetch } from "undici"
import { Audit } from "../../../platform/Audit.js"
import { AppConfig } from "../../../platform/Config.js"
import { CredentialsCipher } from "../../../platform/CredentialsCipher.js"
import { cappedJson, MAX_TOKEN_ANSWER_BYTES } from "../../../platform/outbound/CappedJson.js"
import { OutboundGuard } from "../../../platform/outbound/OutboundGuard.js"
import { decodeRows, JsonArrayOf, Timestamp } from "../../../platform/Rows.js"
import { spanAttributes, traced } from "../../../platform/Traced.js"
import { INTEGRATION_ADMINS, requireBuilder, requireReader, requireRole } from "../../../schemas/Authorization.js"
import { badRequest, conflict, notFound, unprocessable } from "../../../schemas/Errors.js"
import { McpAuthType, McpStatus, McpTransport } from "../../../schemas/McpServer.js"
import type { McpServerCreate, McpServerPatch } from "../../../schemas/McpServer.js"
import type { Principal } from "../../../schemas/Principal.js"
import { isRecord } from "../../../schemas/Records.js"
import { McpBindings } from "../../ports/McpBindings.js"
import { InstallSecrets } from "../InstallSecrets.js"
import { OAuthConnections } from "../OAuthConnections.js"
import { callTool, type DiscoveredTool, discoverTools, type McpEndpoint, McpFailure, stdioCommand } from "./McpConnection.js"

const ServerRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  server_url: Schema.String,
  transport: McpTransport,
  auth_type: McpAuthType,
  credentials_sealed: Schema.NullOr(Schema.String),
  status: McpStatus,
  tools: JsonArrayOf<DiscoveredTool>(),
  tools_refreshed_at: Schema.NullOr(Timestamp),
  discovery_error: Schema.NullOr(Schema.String),
  approved_server_url: Schema.NullOr(Schema.String),
  approved_transport: Schema.NullOr(McpTransport),
  credentials_server_url: Schema.NullOr(Schema.String),
  credentials_transport: Schema.NullOr(McpTransport),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type ServerRow = typeof ServerRow.Type
const serverRows = decodeRows("mcp_servers", ServerRow)

const toServer = (
  {
    tenant_id: _t,
    credentials_sealed,
    tools,
    approved_server_url: _u,
    approved_transport: _p,
    credentials_server_url: _cu,
    credentials_transport: _cp,
    ...row
  }: ServerRow
) => ({
  ...row,
  has_credentials: credentials_sealed !== null,
  tool_count: tools.length
})

const aad = (tenantId: string, id: string) => `mcp:${tenantId}:${id}`

/**
 * Whether the stored credentials may go where the server points now: the target an administrator
 * approved, or the one they were supplied for (re-pointing a server leaves its credentials behind).
 */
const credentialsMayGo = (row: ServerRow) =>
  (row.server_url === row.approved_server_url && row.transport === row.approved_transport) ||
  (row.server_url === row.credentials_server_url && row.transport === row.credentials_transport)
const str = (u: unknown) => (typeof u === "string" ? u : u === undefined || u === null ? "" : String(u))

/**
 * MCP servers of a workspace: registered `pending_review`, activated by an administrator, their
 * tools discovered through the SDK's client (every connection through the outbound guard;
 * stdio only for programs the operator listed in MCP_STDIO_COMMANDS). Activation approves the
 * server's target: a change of URL, transport, auth type or credentials returns it to
 * `pending_review` (its tools unusable), and stored credentials go only to the target an
 * administrator approved or the one they were supplied for, so a builder who re-points a server
 * an administrator set a token on does not receive the token.
 */
export class McpServers extends Effect.Service<McpServers>()("McpServers", {
  dependencies: [InstallSecrets.Default, OAuthConnections.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* CredentialsCipher
    const guard = yield* OutboundGuard
    const config = yield* AppConfig
    const bindings = yield* McpBindings
    const oauth = yield* OAuthConnections
    const secrets = yield* InstallSecrets
    const audit = yield* Audit

    const find = (tenantId: string, id: string) =>
      sql`SELECT * FROM mcp_servers WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
        serverRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("MCP server")) : Effect.succeed(rows[0]))
      )

    /** A URL the transport can use: http(s) through the guard, or a stdio program the operator allows. */
    const checkTarget = (serverUrl: string, transport: "stdio" | "sse" | "streamable-http") =>
      Effect.gen(function*() {
        if (transport === "stdio") {
          const { command } = stdioCommand(serverUrl)
          if (!config.mcpStdioCommands.includes(command)) {
            return yield* unprocessable(
              "MCP_STDIO_NOT_ALLOWED",
              `'${command}' is not in MCP_STDIO_COMMANDS: tenants may not start processes on the platform's machines`
            )
          }
          return
        }
        const url = URL.canParse(serverUrl) ? new URL(serverUrl) : undefined
        if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
          return yield* badRequest("VALIDATION_ERROR", "server_url must be an http(s) URL", [{ path: ["server_url"], message: "not an http(s) URL" }])
        }
        yield* guard.checkUrl(serverUrl).pipe(
          Effect.mapError((e) => unprocessable("OUTBOUND_ADDRESS_REFUSED", e.message, [{ path: ["server_url"], message: e.message }]))
        )
      })

    /** OAuth 2.0 client credentials: a token from the server's token endpoint (through the guard). */
    const clientCredentialsToken = (c: Record<string, unknown>) =>
      Effect.tryPromise({
        try: async () => {
          const response = await undiciFetch(str(c.token_url), {
            method: "POST",
            headers: {
              "content-type": "application/x-www-form-urlencoded",
              authorization: `Basic ${Buffer.from(`${str(c.client_id)}:${str(c.client_secret)}`).toString("base64")}`
            },
            body: new URLSearchParams({ grant_type: "client_credentials", ...(c.scope !== undefined ? { scope: str(c.scope) } : {}) }).toString(),
            dispatcher: guard.dispatcher,
            signal: AbortSignal.timeout(10_000)
          })
          const body = await cappedJson(response, MAX_TOKEN_ANSWER_BYTES)
          if (!response.ok || !isRecord(body) || typeof body.access_token !== "string") throw new Error(`token endpoint answered ${response.status}`)
          return body.access_token
        },
        catch: (error) => new McpFailure({ message: `The OAuth token could not be obtained: ${error instanceof Error ? error.message : String(error)}` })
      })

    const endpointOf = (row: ServerRow, userId: string | null) =>
      Effect.gen(function*() {
        const withCredentials = credentialsMayGo(row)
        const credentials = row.credentials_sealed === null || !withCredentials
          ? {}
          : JSON.parse(yield* cipher.decrypt(row.credentials_sealed, aad(row.tenant_id, row.id)).pipe(Effect.orDie)) as Record<string, unknown>
        const headers: Record<string, string> = {}
        switch (withCredentials ? row.auth_type : "none") {
          case "api_key":
            headers[str(credentials.header || "X-API-Key")] = str(credentials.api_key)
            break
          case "bearer_token":
            headers.authorization = `Bearer ${str(credentials.token)}`
            break
          case "basic_auth":
            headers.authorization = `Basic ${Buffer.from(`${str(credentials.username)}:${str(credentials.password)}`).toString("base64")}`
            break
          case "oauth2":
            headers.authorization = `Bearer ${yield* clientCredentialsToken(credentials)}`
            break
          case "oauth2_authcode": {
            const integrationId = str(credentials.integration_id)
            if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(integrationId)) {
              return yield* new McpFailure({ message: "Set credentials.integration_id: the integration whose OAuth connection signs in to this server" })
            }
            const token = yield* oauth.accessToken(row.tenant_id, integrationId, userId)
            if (token === undefined) return yield* new McpFailure({ message: "Connect your account to this server's integration first (no OAuth connection)" })
            headers.authorization = `Bearer ${token}`
            break
          }
          case "none":
            break
        }
        return {
          serverUrl: row.server_url,
          transport: row.transport,
          headers,
          dispatcher: guard.dispatcher,
          timeoutMs: config.mcpDiscoveryTimeoutSeconds * 1000,
          maxResponseBytes: config.functionMaxResponseBytes
        } satisfies McpEndpoint
      })

    /** Lists the tools and stores them (or why that failed). */
    const discover = (row: ServerRow, userId: string | null) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(Effect.flatMap(endpointOf(row, userId), discoverTools))
        const [updated] = yield* (Either.isRight(found)
          ? sql`UPDATE mcp_servers SET tools = ${JSON.stringify(found.right)}::jsonb, tools_refreshed_at = now(), discovery_error = NULL,
              updated_at = now() WHERE id = ${row.id} RETURNING *`
          : sql`UPDATE mcp_servers SET discovery_error = ${found.left.message}, updated_at = now() WHERE id = ${row.id} RETURNING *`).pipe(
            serverRows,
            Effect.orDie
          )
        return updated
      }).pipe(Effect.withSpan("McpServers.discover", { attributes: { "mcp.server": row.id } }))

    const requireAdmin = (principal: Principal) => requireRole(principal, INTEGRATION_ADMINS, "MCP server lifecycle changes need an administrator")

    const create = (principal: Principal, body: typeof McpServerCreate.Type) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        yield* checkTarget(body.server_url, body.transport)
        const [row] = yield* sql`INSERT INTO mcp_servers ${
          sql.insert({
            id: randomUUID(),
            tenant_id: principal.tenantId,
            name: body.name,
            description: body.description ?? null,
            server_url: body.server_url,
            transport: body.transport,
            auth_type: body.auth_type,
            created_by: principal.userId
          })
        } RETURNING *`.pipe(serverRows, Effect.orDie)
        return toServer(yield* discover(row, principal.userId))
      })

    const update = (principal: Principal, id: string, body: typeof McpServerPatch.Type) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const current = yield* find(principal.tenantId, id)
        const serverUrl = body.server_url ?? current.server_url
        const transport = body.transport ?? current.transport
        if (body.server_url !== undefined || body.transport !== undefined) yield* checkTarget(serverUrl, transport)
        const authType = body.auth_type ?? current.auth_type
        if (
          authType === "oauth2_authcode" && body.credentials !== undefined && !(yield* secrets.owns(principal.tenantId, str(body.credentials.integration_id)))
        ) {
          return yield* unprocessable("VALIDATION_ERROR", "credentials.integration_id names no integration installed in this workspace", [
            { path: ["credentials", "integration_id"], message: "not an integration of this workspace" }
          ])
        }
        const changed = serverUrl !== current.server_url || transport !== current.transport || authType !== current.auth_type || body.credentials !== undefined
        const sealed = body.credentials === undefined
          ? current.credentials_sealed
          : yield* cipher.encrypt(JSON.stringify(body.credentials), aad(principal.tenantId, id))
        const [row] = yield* sql`UPDATE mcp_servers SET name = ${body.name ?? current.name},
          description = ${body.description ?? current.description}, server_url = ${serverUrl}, transport = ${transport},
          auth_type = ${authType}, credentials_sealed = ${sealed},
          ${body.credentials === undefined ? sql`` : sql`credentials_server_url = ${serverUrl}, credentials_transport = ${transport},`}
          status = ${changed && current.status !== "disabled" ? "pending_review" : current.status}, updated_at = now()
          WHERE id = ${id} RETURNING *`.pipe(serverRows, Effect.orDie)
        if (changed && current.status === "active") {
          yield* audit.record(principal, {
            tenantId: principal.tenantId,
            action: "mcp_server.review_required",
            resourceType: "mcp_server",
            resourceId: id,
            details: { server_url: serverUrl }
          })
        }
        return toServer(changed ? yield* discover(row, principal.userId) : row)
      })

    const remove = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        yield* find(principal.tenantId, id)
        const users = yield* bindings.boundBy(principal.tenantId, id)
        if (users.length > 0) {
          return yield* conflict("MCP_SERVER_IN_USE", `Published AI Employees use this server: ${users.join(", ")}. Publish them without it first.`)
        }
        yield* sql`DELETE FROM mcp_servers WHERE id = ${id}`.pipe(Effect.orDie)
      })

    const transition = (principal: Principal, id: string, from: ReadonlyArray<string>, to: "active" | "disabled", what: string) =>
      Effect.gen(function*() {
        yield* requireAdmin(principal)
        const row = yield* find(principal.tenantId, id)
        if (row.status === to) return toServer(row)
        if (!from.includes(row.status)) return yield* conflict("MCP_SERVER_STATE", `A ${row.status} server cannot be ${what}`)
        const [updated] = yield* (to === "active"
          ? sql`UPDATE mcp_servers SET status = 'active', approved_server_url = server_url, approved_transport = transport, updated_at = now()
              WHERE id = ${id} RETURNING *`
          : sql`UPDATE mcp_servers SET status = ${to}, updated_at = now() WHERE id = ${id} RETURNING *`).pipe(serverRows, Effect.orDie)
        yield* audit.record(principal, {
          tenantId: principal.tenantId,
          action: `mcp_server.${to === "active" ? "activated" : "disabled"}`,
          resourceType: "mcp_server",
          resourceId: id,
          details: { server_url: updated.server_url }
        })
        // Approved now: its tools are listed with its credentials.
        return toServer(to === "active" && row.status === "pending_review" ? yield* discover(updated, principal.userId) : updated)
      })

    const refresh = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const row = yield* discover(yield* find(principal.tenantId, id), principal.userId)
        if (row.discovery_error !== null) return yield* unprocessable("MCP_DISCOVERY_FAILED", row.discovery_error)
        return { items: row.tools }
      })

    /** Active servers among `ids`, for the tool registry. */
    const active = (tenantId: string, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([] as ReadonlyArray<ServerRow>)
        : sql`SELECT * FROM mcp_servers WHERE tenant_id = ${tenantId} AND status = 'active' AND id::text IN ${sql.in([...ids])}`.pipe(serverRows, Effect.orDie)

    const invoke = (tenantId: string, serverId: string, tool: string, args: Record<string, unknown>, userId: string | null) =>
      Effect.gen(function*() {
        const [row] = yield* active(tenantId, [serverId])
        if (row === undefined) return yield* new McpFailure({ message: "The MCP server is not active" })
        return yield* callTool({ ...(yield* endpointOf(row, userId)), timeoutMs: config.functionTimeoutSeconds * 1000 }, tool, args)
      }).pipe(spanAttributes({ "mcp.server": serverId, "mcp.tool": tool }))

    return traced("McpServers", {
      list: (principal: Principal) =>
        Effect.zipRight(
          requireReader(principal),
          sql`SELECT * FROM mcp_servers WHERE tenant_id = ${principal.tenantId} ORDER BY name, id`.pipe(serverRows, Effect.orDie)
        ).pipe(
          Effect.map((rows) => ({ items: rows.map(toServer) }))
        ),
      get: (principal: Principal, id: string) => Effect.zipRight(requireReader(principal), Effect.map(find(principal.tenantId, id), toServer)),
      tools: (principal: Principal, id: string) =>
        Effect.zipRight(requireReader(principal), Effect.map(find(principal.tenantId, id), (r) => ({ items: r.tools }))),
      create,
      update,
      remove,
      refresh,
      activate: (principal: Principal, id: string) => transition(principal, id, ["pending_review", "disabled"], "active", "activated"),
      disable: (principal: Principal, id: string) => transition(principal, id, ["pending_review", "active"], "disabled", "disabled"),
      enable: (principal: Principal, id: string) => transition(principal, id, ["disabled"], "active", "enabled (activate a pending server)"),
      statuses: (tenantId: string, ids: ReadonlyArray<string>) =>
        ids.length === 0
          ? Effect.succeed(new Map<string, "approved" | "pending">())
          : sql`SELECT id::text AS id, status FROM mcp_servers WHERE tenant_id = ${tenantId}
              AND id::text IN ${sql.in([...ids])}`.pipe(decodeRows("mcp_servers", Schema.Struct({ id: Schema.String, status: Schema.String }))).pipe(
            Effect.map((rows) => new Map(rows.map((r) => [r.id, r.status === "active" ? "approved" as const : "pending" as const]))),
            Effect.orDie
          ),
      active,
      invoke,
      serverOf: (tenantId: string, id: string) => Effect.option(find(tenantId, id)).pipe(Effect.map(Option.getOrUndefined))
    })
  })
}) {}

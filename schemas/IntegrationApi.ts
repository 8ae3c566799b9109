import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, Unprocessable } from "./Errors.js"
import * as I from "./Integration.js"
import * as M from "./McpServer.js"
import { Page } from "./Pagination.js"
import * as Security from "./Security.js"

const id = HttpApiSchema.param("id", Schema.UUID)
const functionName = HttpApiSchema.param("name", Schema.String)

/** The catalog, installs, credentials, functions, OAuth connections and executions. */
export class IntegrationsApi extends HttpApiGroup.make("integrations")
  .add(
    HttpApiEndpoint.get("catalog", "/catalog").addSuccess(I.CatalogList).annotate(
      OpenApi.Description,
      "Platform entries and the workspace's own, with their functions"
    )
  )
  .add(HttpApiEndpoint.get("catalogEntry")`/catalog/${id}`.addSuccess(I.CatalogEntry))
  .add(
    HttpApiEndpoint.post("createEntry", "/catalog")
      .setPayload(I.CatalogEntryRequest)
      .addSuccess(I.CatalogEntry, { status: 201 })
      .annotate(
        OpenApi.Description,
        "Administrators author an entry of the workspace (scope custom); its base_url is checked by the outbound guard (422 OUTBOUND_ADDRESS_REFUSED)"
      )
  )
  .add(
    HttpApiEndpoint.post("importSpec", "/catalog/import-spec")
      .setPayload(I.ImportSpecRequest)
      .addSuccess(I.CatalogEntry, { status: 201 })
      .annotate(
        OpenApi.Description,
        "Administrators import an OpenAPI 3.0 or 3.1 document (JSON or YAML, given inline or by spec_url), dereferenced with " +
          "@apidevtools/swagger-parser: one http function per operation (operationId, else method and path), its parameters " +
          "and JSON request body as the input schema. 400 INVALID_SPEC when the document does not parse or validate."
      )
  )
  .add(HttpApiEndpoint.get("capabilities", "/integrations/capabilities").addSuccess(I.Capabilities))
  .add(HttpApiEndpoint.get("installed", "/integrations").addSuccess(I.TenantIntegrationList))
  .add(
    HttpApiEndpoint.post("install", "/integrations")
      .setPayload(I.InstallRequest)
      .addSuccess(I.TenantIntegration, { status: 201 })
      .annotate(OpenApi.Description, "409 INTEGRATION_ALREADY_INSTALLED for a second install of the same entry")
  )
  .add(HttpApiEndpoint.get("installation")`/integrations/${id}`.addSuccess(I.TenantIntegration))
  .add(HttpApiEndpoint.del("uninstall")`/integrations/${id}`.addSuccess(HttpApiSchema.NoContent))
  .add(
    HttpApiEndpoint.put("credentials")`/integrations/${id}/credentials`
      .setPayload(I.CredentialsRequest)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Description, "Stored sealed under CREDENTIALS_KEY; never returned by any read (see has_data_source_credentials)")
  )
  .add(HttpApiEndpoint.post("enableFunction")`/integrations/${id}/functions/${functionName}/enable`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.post("disableFunction")`/integrations/${id}/functions/${functionName}/disable`.addSuccess(HttpApiSchema.NoContent))
  .add(
    HttpApiEndpoint.post("oauthAuthorize")`/integrations/${id}/oauth2/authorize`
      .setPayload(I.OAuthAuthorizeRequest)
      .addSuccess(I.OAuthAuthorization)
      .annotate(
        OpenApi.Description,
        "The authorization URL (authorization code with PKCE S256 and a one-time state, valid 10 minutes) for the calling user; the install's credentials hold client_id and client_secret"
      )
  )
  .add(
    HttpApiEndpoint.post("oauthCallback")`/integrations/${id}/oauth2/callback`
      .setPayload(I.OAuthCallbackRequest)
      .addSuccess(I.OAuthConnection)
      .annotate(
        OpenApi.Description,
        "Exchanges the code (with the PKCE verifier) at the token URL through the outbound guard; the tokens are stored sealed for the calling user and refreshed when they expire"
      )
  )
  .add(HttpApiEndpoint.get("connection")`/integrations/${id}/connections/me`.addSuccess(I.OAuthConnection))
  .add(HttpApiEndpoint.del("revokeConnection")`/integrations/${id}/connections/me`.addSuccess(HttpApiSchema.NoContent))
  .add(
    HttpApiEndpoint.get("callable", "/execute/functions").addSuccess(I.CallableFunctions).annotate(
      OpenApi.Description,
      "Enabled functions of installed integrations, each with its input_schema"
    )
  )
  .add(
    HttpApiEndpoint.post("execute", "/execute")
      .setPayload(I.ExecuteRequest)
      .addSuccess(I.ExecutionResult)
      .annotate(
        OpenApi.Description,
        "Runs a function now and records the execution. 404 for an unknown function, one not installed for the workspace or " +
          "not enabled; 400 INVALID_INPUT with the failing fields when input does not match its input_schema."
      )
  )
  .add(HttpApiEndpoint.get("executions", "/executions").setUrlParams(I.ExecutionListParams).addSuccess(Page(I.Execution)))
  .add(HttpApiEndpoint.get("execution")`/executions/${id}`.addSuccess(I.Execution))
  .addError(Conflict)
  .addError(Unprocessable)
  .middleware(Security.Authentication)
  .prefix("/api/v1/integrations")
{}

/** MCP servers whose tools AI Employees may call once an administrator activates them. */
export class McpServersApi extends HttpApiGroup.make("mcpServers")
  .add(HttpApiEndpoint.get("list", "/mcp-servers").addSuccess(M.McpServerList))
  .add(
    HttpApiEndpoint.post("create", "/mcp-servers")
      .setPayload(M.McpServerCreate)
      .addSuccess(M.McpServer, { status: 201 })
      .annotate(OpenApi.Description, "Registered as pending_review; its URL is checked by the outbound guard; stdio only for programs in MCP_STDIO_COMMANDS")
  )
  .add(HttpApiEndpoint.get("get")`/mcp-servers/${id}`.addSuccess(M.McpServer))
  .add(
    HttpApiEndpoint.patch("update")`/mcp-servers/${id}`
      .setPayload(M.McpServerPatch)
      .addSuccess(M.McpServer)
      .annotate(OpenApi.Description, "Credentials are sealed and never returned; a new URL, transport, auth type or credentials re-runs tool discovery")
  )
  .add(
    HttpApiEndpoint.del("remove")`/mcp-servers/${id}`
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Description, "409 MCP_SERVER_IN_USE while the active version of an AI Employee binds it")
  )
  .add(HttpApiEndpoint.get("tools")`/mcp-servers/${id}/tools`.addSuccess(M.McpToolList))
  .add(HttpApiEndpoint.post("refreshTools")`/mcp-servers/${id}/refresh-tools`.addSuccess(M.McpToolList))
  .add(HttpApiEndpoint.post("activate")`/mcp-servers/${id}/activate`.addSuccess(M.McpServer))
  .add(HttpApiEndpoint.post("disable")`/mcp-servers/${id}/disable`.addSuccess(M.McpServer))
  .add(HttpApiEndpoint.post("enable")`/mcp-servers/${id}/enable`.addSuccess(M.McpServer))
  .addError(Conflict)
  .addError(Unprocessable)
  .middleware(Security.Authentication)
  .prefix("/api/v1/integrations")
{}

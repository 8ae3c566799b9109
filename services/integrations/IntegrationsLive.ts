import { Layer } from "effect"
import { isolated } from "../../platform/Isolated.js"
import { Authentication } from "../../schemas/Security.js"
import { Catalog } from "./Catalog.js"
import { CatalogRepo } from "./CatalogRepo.js"
import { Functions } from "./Functions.js"
import { IntegrationsHttp } from "./http/IntegrationsHttp.js"
import { McpServersHttp } from "./http/McpServersHttp.js"
import { Installs } from "./Installs.js"
import { InstallSecrets } from "./InstallSecrets.js"
import { MailIntegrationsLive } from "./MailSender.js"
import { McpServers } from "./mcp/McpServers.js"
import { OAuthConnections } from "./OAuthConnections.js"
import { TicketingConnectionsLive } from "./TicketingConnectionsLive.js"
import { ExternalToolCallsLive, FunctionToolsLive, McpRegistryLive, McpToolsLive } from "./ToolSources.js"

/**
 * The integrations service: the catalog, installs and their credentials, function calls, MCP
 * servers; their tools registered with the runtime's tool registry, the MCP registry of the
 * publish checks and the run's external tool calls; mail and ticketing connections for other services.
 */
export const IntegrationsLive = Layer.mergeAll(
  FunctionToolsLive,
  McpToolsLive,
  McpRegistryLive,
  ExternalToolCallsLive,
  MailIntegrationsLive,
  TicketingConnectionsLive
).pipe(
  Layer.provideMerge(Layer.mergeAll(Catalog.Default, Installs.Default, Functions.Default, McpServers.Default)),
  Layer.provideMerge(Layer.mergeAll(CatalogRepo.Default, OAuthConnections.Default)),
  Layer.provideMerge(InstallSecrets.Default)
)

export const IntegrationsHttpLive = isolated(
  Layer.mergeAll(IntegrationsHttp, McpServersHttp),
  Authentication,
  Catalog,
  Installs,
  OAuthConnections,
  Functions,
  McpServers
)

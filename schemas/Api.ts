import { HttpApi, OpenApi } from "@effect/platform"
import { AgentsApi } from "./AgentApi.js"
import { ApiKeysApi, AuditApi, AuthMeApi, AuthPublicApi, GroupsApi, TenantsApi, UsersApi } from "./AuthApi.js"
import { ChatApi } from "./ChatApi.js"
import { DocgenApi } from "./DocgenApi.js"
import { errorCodeTable } from "./ErrorCodes.js"
import { BadRequest, Forbidden, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized } from "./Errors.js"
import { EvalApi } from "./EvalApi.js"
import { IngestionApi } from "./IngestionApi.js"
import { IntegrationsApi, McpServersApi } from "./IntegrationApi.js"
import { flattenErrorSchemas } from "./OpenApiErrors.js"
import { nameBodySchemas } from "./OpenApiNames.js"
import { withStreamEvents } from "./OpenApiStream.js"
import { describeOperations } from "./OpenApiSummaries.js"
import { RetentionApi } from "./Retention.js"
import { HitlApi, PublicAppApi, RunsApi, WebhookDeliveryApi, WebhooksApi } from "./RunApi.js"
import { SystemApi } from "./SystemApi.js"
import { TicketingApi } from "./TicketingApi.js"
import { DocumentTriggersApi, InboundEmailApi, NudgesApi, SchedulesApi } from "./TriggerApi.js"
import { AiEmployeesApi, LlmProvidersApi, VoiceTreesApi, WorkflowsApi } from "./WorkflowApi.js"

/** The whole public contract: every service mounts its groups here. */
export class PlatformApi extends HttpApi.make("builder-platform")
  .add(SystemApi)
  .add(AuthPublicApi)
  .add(AuthMeApi)
  .add(ApiKeysApi)
  .add(TenantsApi)
  .add(UsersApi)
  .add(GroupsApi)
  .add(AuditApi)
  .add(WorkflowsApi)
  .add(AiEmployeesApi)
  .add(VoiceTreesApi)
  .add(RunsApi)
  .add(HitlApi)
  .add(RetentionApi)
  .add(PublicAppApi)
  .add(WebhooksApi)
  .add(WebhookDeliveryApi)
  .add(SchedulesApi)
  .add(DocumentTriggersApi)
  .add(InboundEmailApi)
  .add(NudgesApi)
  .add(AgentsApi)
  .add(IngestionApi)
  .add(LlmProvidersApi)
  .add(ChatApi)
  .add(IntegrationsApi)
  .add(McpServersApi)
  .add(EvalApi)
  .add(DocgenApi)
  .add(TicketingApi)
  .addError(BadRequest)
  .addError(Unauthorized)
  .addError(Forbidden)
  .addError(NotFound)
  .addError(PayloadTooLarge)
  .addError(TooManyRequests)
  .annotateContext(
    OpenApi.annotations({
      title: "Builder Platform API",
      version: "1.0.0",
      description: "Multi-tenant API for building and operating AI Employees. Every error is the flat body " +
        "{code, message, request_id, details?}; request_id is also sent as the X-Request-Id header.\n\n" +
        "## Error codes\n\n" + errorCodeTable(),
      transform: (spec) => withStreamEvents(describeOperations(nameBodySchemas(flattenErrorSchemas(spec))))
    })
  )
{}

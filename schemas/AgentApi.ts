import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as A from "./Agent.js"
import { Unprocessable } from "./Errors.js"
import { PageParams } from "./Pagination.js"
import * as Security from "./Security.js"

const id = HttpApiSchema.param("id", Schema.UUID)

export class AgentsApi extends HttpApiGroup.make("agents")
  .add(HttpApiEndpoint.get("types", "/agent-types").addSuccess(Schema.Struct({ items: Schema.Array(A.AgentTypeView) })))
  .add(
    HttpApiEndpoint.get("typeVersion")`/agent-types/${HttpApiSchema.param("type", Schema.String)}/${HttpApiSchema.param("version", Schema.String)}`
      .addSuccess(A.AgentTypeVersionView)
  )
  .add(
    HttpApiEndpoint.get("presets", "/agent-presets")
      .addSuccess(Schema.Struct({ items: Schema.Array(A.AgentPresetView) }))
      .annotate(OpenApi.Description, "Starting configurations for new steps; `offered: false` presets are refused on new steps but keep running where they are")
  )
  .add(
    HttpApiEndpoint.post("createDefinition", "/agent-definitions")
      .setPayload(A.AgentDefinitionRequest)
      .addSuccess(A.AgentDefinition, { status: 201 })
      .annotate(Security.AllowedRoles, Security.BUILDERS)
  )
  .add(HttpApiEndpoint.get("listDefinitions", "/agent-definitions").setUrlParams(PageParams).addSuccess(A.AgentDefinitionPage))
  .add(HttpApiEndpoint.get("getDefinition")`/agent-definitions/${id}`.addSuccess(A.AgentDefinition))
  .add(
    HttpApiEndpoint.put("replaceDefinition")`/agent-definitions/${id}`.setPayload(A.AgentDefinitionRequest).addSuccess(A.AgentDefinition).annotate(
      Security.AllowedRoles,
      Security.BUILDERS
    )
  )
  .add(HttpApiEndpoint.del("deleteDefinition")`/agent-definitions/${id}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.post("testExecute", "/agents/test-execute").setPayload(A.TestExecuteRequest).addSuccess(A.TestExecution))
  .add(HttpApiEndpoint.get("testExecutions", "/agents/test-executions").setUrlParams(PageParams).addSuccess(A.TestExecutionPage))
  .add(HttpApiEndpoint.get("testExecution")`/agents/test-executions/${id}`.addSuccess(A.TestExecution))
  .add(
    HttpApiEndpoint.get("file")`/files/${id}`
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" }))
      .annotate(OpenApi.Description, "Downloads a file an agent produced (a rule_validation report_file_id: an .xlsx workbook)")
  )
  .addError(Unprocessable)
  .middleware(Security.Authentication)
  .prefix("/api/v1/agent")
{}

import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, Forbidden, NotFound, Unprocessable } from "./Errors.js"
import { VoiceTreeId, VoiceTreeVersionId, WorkflowId } from "./Ids.js"
import * as P from "./LlmProvider.js"
import { Page, PageParams } from "./Pagination.js"
import { IntFromString } from "./QueryParams.js"
import * as Security from "./Security.js"
import * as V from "./Version.js"
import * as T from "./VoiceTree.js"
import * as W from "./Workflow.js"

const id = HttpApiSchema.param("id", WorkflowId)
const version = HttpApiSchema.param("version", IntFromString(1))

/** Workflow routes under /api/v1/workflow. */
export class WorkflowsApi extends HttpApiGroup.make("workflows")
  .add(
    HttpApiEndpoint.post("create", "/workflows")
      .setPayload(W.CreateWorkflowRequest)
      .addSuccess(W.SavedWorkflow, { status: 201 })
      .annotate(Security.AllowedRoles, Security.BUILDERS)
  )
  .add(HttpApiEndpoint.get("list", "/workflows").setUrlParams(W.ListWorkflowsParams).addSuccess(W.WorkflowPage))
  .add(HttpApiEndpoint.get("get")`/workflows/${id}`.addSuccess(W.Workflow))
  .add(
    HttpApiEndpoint.put("replace")`/workflows/${id}`.setPayload(W.UpdateWorkflowRequest).addSuccess(W.SavedWorkflow).annotate(
      Security.AllowedRoles,
      Security.BUILDERS
    )
  )
  .add(
    HttpApiEndpoint.patch("update")`/workflows/${id}`.setPayload(W.PatchWorkflowRequest).addSuccess(W.SavedWorkflow).annotate(
      Security.AllowedRoles,
      Security.BUILDERS
    )
  )
  .add(HttpApiEndpoint.del("archive")`/workflows/${id}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.post("restore")`/workflows/${id}/restore`.addSuccess(W.Workflow))
  .add(HttpApiEndpoint.get("getConfig")`/workflows/${id}/config`.addSuccess(W.WorkflowConfig))
  .add(
    HttpApiEndpoint.put("putConfig")`/workflows/${id}/config`.setPayload(W.PutConfigRequest).addSuccess(W.WorkflowConfig).annotate(
      Security.AllowedRoles,
      Security.BUILDERS
    )
  )
  .add(
    HttpApiEndpoint.patch("patchLlmConfig")`/workflows/${id}/llm-config`
      .setPayload(W.PatchLlmConfigRequest)
      .addSuccess(W.WorkflowConfig)
      .annotate(Security.AllowedRoles, Security.BUILDERS)
  )
  .add(HttpApiEndpoint.post("publish")`/workflows/${id}/publish`.addSuccess(V.PublishResult).addError(Unprocessable))
  .add(HttpApiEndpoint.get("versions")`/workflows/${id}/versions`.setUrlParams(PageParams).addSuccess(V.VersionList))
  .add(HttpApiEndpoint.get("version")`/workflows/${id}/versions/${version}`.addSuccess(V.Version))
  .add(HttpApiEndpoint.get("templates", "/templates").addSuccess(Schema.Struct({ items: Schema.Array(W.Template) })))
  .add(
    HttpApiEndpoint.post("fromTemplate")`/templates/${HttpApiSchema.param("id", Schema.UUID)}/create-workflow`
      .addSuccess(W.SavedWorkflow, { status: 201 })
  )
  .addError(Conflict)
  .addError(Unprocessable)
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow")
{}

const aie = "/api/v1/ai-employees"

/** The AI Employee alias routes: the same operations, recorded in the audit trail. */
export class AiEmployeesApi extends HttpApiGroup.make("aiEmployees")
  .add(
    HttpApiEndpoint.post("create", aie).setPayload(W.CreateWorkflowRequest).addSuccess(W.SavedWorkflow, { status: 201 }).annotate(
      Security.AllowedRoles,
      Security.BUILDERS
    )
  )
  .add(HttpApiEndpoint.get("list", aie).setUrlParams(W.ListWorkflowsParams).addSuccess(W.WorkflowPage))
  .add(HttpApiEndpoint.get("get")`/api/v1/ai-employees/${id}`.addSuccess(W.Workflow))
  .add(
    HttpApiEndpoint.put("replace")`/api/v1/ai-employees/${id}`.setPayload(W.UpdateWorkflowRequest).addSuccess(W.SavedWorkflow).annotate(
      Security.AllowedRoles,
      Security.BUILDERS
    )
  )
  .add(
    HttpApiEndpoint.patch("update")`/api/v1/ai-employees/${id}`.setPayload(W.PatchWorkflowRequest).addSuccess(W.SavedWorkflow).annotate(
      Security.AllowedRoles,
      Security.BUILDERS
    )
  )
  .add(HttpApiEndpoint.del("archive")`/api/v1/ai-employees/${id}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.post("restore")`/api/v1/ai-employees/${id}/restore`.addSuccess(W.Workflow))
  .add(HttpApiEndpoint.get("getConfig")`/api/v1/ai-employees/${id}/config`.addSuccess(W.WorkflowConfig))
  .add(HttpApiEndpoint.put("putConfig")`/api/v1/ai-employees/${id}/config`.setPayload(W.PutConfigRequest).addSuccess(W.WorkflowConfig))
  .add(
    HttpApiEndpoint.patch("patchLlmConfig")`/api/v1/ai-employees/${id}/llm-config`
      .setPayload(W.PatchLlmConfigRequest)
      .addSuccess(W.WorkflowConfig)
  )
  .add(
    HttpApiEndpoint.post("clone")`/api/v1/ai-employees/${id}/clone`
      .setPayload(W.CloneRequest)
      .addSuccess(W.SavedWorkflow, { status: 201 })
  )
  .add(
    HttpApiEndpoint.post("share")`/api/v1/ai-employees/${id}/share`
      .setPayload(W.ShareRequest)
      .addSuccess(W.Workflow, { status: 201 })
      .addError(Unprocessable)
  )
  .add(HttpApiEndpoint.post("publish")`/api/v1/ai-employees/${id}/publish`.addSuccess(V.PublishResult).addError(Unprocessable))
  .add(HttpApiEndpoint.get("versions")`/api/v1/ai-employees/${id}/versions`.setUrlParams(PageParams).addSuccess(V.VersionList))
  .add(HttpApiEndpoint.get("version")`/api/v1/ai-employees/${id}/versions/${version}`.addSuccess(V.Version))
  .add(
    HttpApiEndpoint.patch("updateVersion")`/api/v1/ai-employees/${id}/versions/${version}`
      .setPayload(V.UpdateVersionRequest)
      .addSuccess(V.Version)
  )
  .add(HttpApiEndpoint.del("deleteVersion")`/api/v1/ai-employees/${id}/versions/${version}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.post("revert")`/api/v1/ai-employees/${id}/versions/${version}/revert`.addSuccess(V.Version))
  .add(
    HttpApiEndpoint.post("promote")`/api/v1/ai-employees/${id}/versions/${version}/promote`
      .addSuccess(V.Version)
      .annotate(OpenApi.Deprecated, true)
  )
  .add(
    HttpApiEndpoint.get("documentDiff")`/api/v1/ai-employees/${id}/versions/${version}/document-diff`
      .setUrlParams(V.DocumentDiffParams)
      .addSuccess(V.DocumentDiff)
      .addError(Unprocessable)
  )
  .addError(Conflict)
  .addError(Unprocessable)
  .middleware(Security.Authentication)
{}

const treeId = HttpApiSchema.param("id", VoiceTreeId)
const treeVersionId = HttpApiSchema.param("versionId", VoiceTreeVersionId)

/** Voice trees, mounted at /api/v1/workflow/voice. */
export class VoiceTreesApi extends HttpApiGroup.make("voiceTrees")
  .add(
    HttpApiEndpoint.post("create", "/trees")
      .setPayload(T.CreateVoiceTreeRequest)
      .addSuccess(T.VoiceTree, { status: 201 })
      .annotate(Security.AllowedRoles, Security.BUILDERS)
  )
  .add(HttpApiEndpoint.get("list", "/trees").setUrlParams(PageParams).addSuccess(Page(T.VoiceTree)))
  .add(HttpApiEndpoint.get("get")`/trees/${treeId}`.addSuccess(T.VoiceTree))
  .add(
    HttpApiEndpoint.post("addVersion")`/trees/${treeId}/versions`
      .setPayload(T.CreateVoiceTreeVersionRequest)
      .addSuccess(T.VoiceTreeVersion, { status: 201 })
      .annotate(Security.AllowedRoles, Security.BUILDERS)
  )
  .add(HttpApiEndpoint.get("versions")`/trees/${treeId}/versions`.addSuccess(Schema.Struct({ items: Schema.Array(T.VoiceTreeVersion) })))
  .add(HttpApiEndpoint.get("version")`/trees/${treeId}/versions/${treeVersionId}`.addSuccess(T.VoiceTreeVersion))
  .add(HttpApiEndpoint.post("publish")`/trees/${treeId}/publish`.setPayload(T.PublishVoiceTreeRequest).addSuccess(T.VoiceTree))
  .add(HttpApiEndpoint.post("revert")`/trees/${treeId}/versions/${treeVersionId}/revert`.addSuccess(T.VoiceTree))
  .addError(Conflict)
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow/voice")
{}

export { Forbidden, NotFound }

const providerId = HttpApiSchema.param("id", Schema.UUID)

/** A tenant's own model providers, used by AI Employees with use_own_providers on. */
export class LlmProvidersApi extends HttpApiGroup.make("llmProviders")
  .add(
    HttpApiEndpoint.post("create", "/llm-providers")
      .setPayload(P.CreateLlmProviderRequest)
      .addSuccess(P.LlmProvider, { status: 201 })
      .annotate(Security.AllowedRoles, Security.PROVIDER_ADMINS)
  )
  .add(HttpApiEndpoint.get("list", "/llm-providers").setUrlParams(PageParams).addSuccess(P.LlmProviderPage))
  .add(HttpApiEndpoint.get("get")`/llm-providers/${providerId}`.addSuccess(P.LlmProvider))
  .add(
    HttpApiEndpoint.patch("update")`/llm-providers/${providerId}`
      .setPayload(P.UpdateLlmProviderRequest)
      .addSuccess(P.LlmProvider)
      .annotate(Security.AllowedRoles, Security.PROVIDER_ADMINS)
  )
  .add(HttpApiEndpoint.del("remove")`/llm-providers/${providerId}`.addSuccess(HttpApiSchema.NoContent))
  .addError(Conflict)
  .addError(Unprocessable)
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow")
{}

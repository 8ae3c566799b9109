import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as D from "./Docgen.js"
import { Conflict, NotImplemented, Unprocessable } from "./Errors.js"
import * as Security from "./Security.js"

const id = HttpApiSchema.param("id", Schema.UUID)
const versionNumber = HttpApiSchema.param("versionNumber", Schema.NumberFromString.pipe(Schema.int()))
const threadId = HttpApiSchema.param("threadId", Schema.UUID)
const commentId = HttpApiSchema.param("commentId", Schema.UUID)
const jobId = HttpApiSchema.param("jobId", Schema.UUID)

/** Documents written by people and AI Employees: versions, generation, comments, export. */
export class DocgenApi extends HttpApiGroup.make("docgen")
  .add(HttpApiEndpoint.get("list", "/documents").setUrlParams(D.DocumentListParams).addSuccess(D.DocumentList))
  .add(HttpApiEndpoint.post("create", "/documents").setPayload(D.DocumentCreate).addSuccess(D.Document, { status: 201 }))
  .add(
    HttpApiEndpoint.post("bulk", "/documents/bulk")
      .setPayload(D.BulkCreate)
      .addSuccess(D.BulkCreated, { status: 201 })
      .annotate(OpenApi.Description, "A new parent (title) or an existing one (parent_document_id; 404 when missing or not the caller's) and its children, in one transaction")
  )
  .add(HttpApiEndpoint.get("get")`/documents/${id}`.addSuccess(D.Document))
  .add(
    HttpApiEndpoint.patch("update")`/documents/${id}`
      .setPayload(D.DocumentPatch)
      .addSuccess(D.Document)
      .annotate(
        OpenApi.Description,
        "title, a shallow metadata merge, and content by the update_document rules: with target_section_id the <section id> is " +
          "replaced whole (404 SECTION_NOT_FOUND when there is none), else the whole document; HTML is sanitised; table-structure " +
          "tags lost by the parser (rows outside a <table>) are 400 VALIDATION_ERROR and nothing is stored"
      )
  )
  .add(HttpApiEndpoint.del("remove")`/documents/${id}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.get("versions")`/documents/${id}/versions`.addSuccess(D.VersionList))
  .add(HttpApiEndpoint.get("version")`/documents/${id}/versions/${versionNumber}`.addSuccess(D.Version))
  .add(
    HttpApiEndpoint.post("save")`/documents/${id}/versions`
      .setPayload(D.ManualSave)
      .addSuccess(D.Document, { status: 201 })
      .annotate(OpenApi.Description, "A manual version; 409 DOCUMENT_CHANGED when the document is past base_version")
  )
  .add(HttpApiEndpoint.post("restore")`/documents/${id}/restore/${versionNumber}`.addSuccess(D.Document))
  .add(
    HttpApiEndpoint.post("generate")`/documents/${id}/generate`
      .setPayload(D.GenerateRequest)
      .addSuccess(D.GenerateResponse, { status: 202 })
      .annotate(
        OpenApi.Description,
        "Runs the request's workflow_id, else the document's (422 DOCGEN_NO_WORKFLOW), as the caller, with the document, section and " +
          "instructions as input; the run writes back through the docgen.update_document tool; follow it at stream_url"
      )
  )
  .add(HttpApiEndpoint.get("threads")`/documents/${id}/comments/threads`.addSuccess(D.ThreadList))
  .add(HttpApiEndpoint.post("createThread")`/documents/${id}/comments/threads`.setPayload(D.ThreadCreate).addSuccess(D.Thread, { status: 201 }))
  .add(HttpApiEndpoint.patch("updateThread")`/documents/${id}/comments/threads/${threadId}`.setPayload(D.ThreadPatch).addSuccess(D.Thread))
  .add(HttpApiEndpoint.del("removeThread")`/documents/${id}/comments/threads/${threadId}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.post("reply")`/documents/${id}/comments/threads/${threadId}/replies`.setPayload(D.ReplyCreate).addSuccess(D.Thread, { status: 201 }))
  .add(HttpApiEndpoint.patch("updateReply")`/documents/${id}/comments/threads/${threadId}/replies/${commentId}`.setPayload(D.ReplyCreate).addSuccess(D.Thread))
  .add(HttpApiEndpoint.del("removeReply")`/documents/${id}/comments/threads/${threadId}/replies/${commentId}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.get("allThreads", "/comments/threads").setUrlParams(D.ThreadBatchParams).addSuccess(D.ThreadList))
  .add(
    HttpApiEndpoint.post("export", "/export")
      .setPayload(D.ExportRequest)
      .addSuccess(D.ExportJob, { status: 202 })
      .annotate(OpenApi.Description, "html: one self-contained file of the documents in order, at download_url once complete (the owner's, for 1 hour); pdf and pptx are 501")
  )
  .add(HttpApiEndpoint.get("exportJob")`/export/${jobId}`.addSuccess(D.ExportJob))
  .add(HttpApiEndpoint.get("download")`/export/${jobId}/download`.addSuccess(HttpApiSchema.Text({ contentType: "text/html" })))
  .addError(Conflict)
  .addError(Unprocessable)
  .addError(NotImplemented)
  .middleware(Security.Authentication)
  .prefix("/api/v1/docgen")
{}

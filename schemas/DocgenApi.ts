import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as D from "./Docgen.js"
import { Conflict, NotImplemented, PayloadTooLarge, TooManyRequests, Unprocessable } from "./Errors.js"
import { IntFromString } from "./QueryParams.js"
import * as Security from "./Security.js"

const id = HttpApiSchema.param("id", Schema.UUID)
const versionNumber = HttpApiSchema.param("versionNumber", IntFromString(0))
const threadId = HttpApiSchema.param("threadId", Schema.UUID)
const commentId = HttpApiSchema.param("commentId", Schema.UUID)
const jobId = HttpApiSchema.param("jobId", Schema.UUID)
const sessionId = HttpApiSchema.param("sessionId", Schema.UUID)
const slideIndex = HttpApiSchema.param("slide", IntFromString(1))

/** Documents written by people and AI Employees: versions, generation, comments, export. */
export class DocgenApi extends HttpApiGroup.make("docgen")
  .add(HttpApiEndpoint.get("list", "/documents").setUrlParams(D.DocumentListParams).addSuccess(D.DocumentList))
  .add(HttpApiEndpoint.post("create", "/documents").setPayload(D.DocumentCreate).addSuccess(D.Document, { status: 201 }))
  .add(
    HttpApiEndpoint.post("bulk", "/documents/bulk")
      .setPayload(D.BulkCreate)
      .addSuccess(D.BulkCreated, { status: 201 })
      .annotate(
        OpenApi.Description,
        "A new parent (title) or an existing one (parent_document_id; 404 when missing or not the caller's) and its children, in one transaction"
      )
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
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "Runs the request's workflow_id, else the document's (422 DOCGEN_NO_WORKFLOW), as the caller, with the document, section and " +
          "instructions as input; the run writes back through the docgen.update_document tool; follow it at stream_url. Paced as " +
          "POST /workflow/workflows/{id}/run is: past the tenant's run-start rate or fair share, 429 RATE_LIMITED with Retry-After"
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
      .annotate(
        OpenApi.Description,
        "html: one self-contained file of the documents in order, at download_url once complete (the owner's, for 1 hour); pdf and pptx are 501"
      )
  )
  .add(HttpApiEndpoint.get("docSessions")`/documents/${id}/chat/sessions`.addSuccess(D.ChatSessionList))
  .add(HttpApiEndpoint.post("createDocSession")`/documents/${id}/chat/sessions`.setPayload(D.ChatSessionCreate).addSuccess(D.ChatSession, { status: 201 }))
  .add(HttpApiEndpoint.get("docSession")`/documents/${id}/chat/sessions/${sessionId}`.addSuccess(D.ChatSession))
  .add(HttpApiEndpoint.patch("renameDocSession")`/documents/${id}/chat/sessions/${sessionId}`.setPayload(D.ChatSessionPatch).addSuccess(D.ChatSession))
  .add(HttpApiEndpoint.del("removeDocSession")`/documents/${id}/chat/sessions/${sessionId}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.get("docMessages")`/documents/${id}/chat/sessions/${sessionId}/messages`.addSuccess(D.ChatMessageList))
  .add(
    HttpApiEndpoint.post("docMessage")`/documents/${id}/chat/sessions/${sessionId}/messages`
      .setPayload(D.ChatMessageCreate)
      .addSuccess(D.ChatExchange, { status: 201 })
      .annotate(
        OpenApi.Description,
        "Answered synchronously through the workspace's models: `edit` returns replacement_text for selected_html; `qa` answers about the document"
      )
  )
  .add(HttpApiEndpoint.get("sessions", "/chat/sessions").addSuccess(D.ChatSessionList))
  .add(HttpApiEndpoint.post("createSession", "/chat/sessions").setPayload(D.ChatSessionCreate).addSuccess(D.ChatSession, { status: 201 }))
  .add(HttpApiEndpoint.get("session")`/chat/sessions/${sessionId}`.addSuccess(D.ChatSession))
  .add(HttpApiEndpoint.patch("renameSession")`/chat/sessions/${sessionId}`.setPayload(D.ChatSessionPatch).addSuccess(D.ChatSession))
  .add(HttpApiEndpoint.del("removeSession")`/chat/sessions/${sessionId}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.get("messages")`/chat/sessions/${sessionId}/messages`.addSuccess(D.ChatMessageList))
  .add(
    HttpApiEndpoint.post("message")`/chat/sessions/${sessionId}/messages`
      .setPayload(D.ChatMessageCreate)
      .addSuccess(D.ChatExchange, { status: 201 })
      .annotate(OpenApi.Description, "Q&A without a document: the session's workflow_id scopes the knowledge-base search (its attached knowledge bases)")
  )
  .add(
    HttpApiEndpoint.post("outline", "/generate-document-outline")
      .setPayload(D.OutlineRequest)
      .addSuccess(D.Outline)
      .annotate(
        OpenApi.Description,
        "MANUAL: an HTML outline (headings and nested lists); UPLOAD: markdown (# headings, nested - items); the sections as a tree. AI is 501 NOT_IMPLEMENTED."
      )
  )
  .add(HttpApiEndpoint.get("profiles", "/section-profiles").addSuccess(D.SectionProfileList))
  .add(HttpApiEndpoint.post("createProfile", "/section-profiles").setPayload(D.SectionProfileRequest).addSuccess(D.SectionProfile, { status: 201 }))
  .add(
    HttpApiEndpoint.post("classify", "/section-profiles/classify")
      .setPayload(D.ClassifyRequest)
      .addSuccess(D.Classification)
      .annotate(OpenApi.Description, "Each section title to the best-fitting profile (or none), decided by the model")
  )
  .add(HttpApiEndpoint.get("profile")`/section-profiles/${id}`.addSuccess(D.SectionProfile))
  .add(HttpApiEndpoint.patch("updateProfile")`/section-profiles/${id}`.setPayload(D.SectionProfilePatch).addSuccess(D.SectionProfile))
  .add(HttpApiEndpoint.del("removeProfile")`/section-profiles/${id}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.get("templates", "/templates").addSuccess(D.TemplateList))
  .add(HttpApiEndpoint.post("createTemplate", "/templates").setPayload(D.TemplateCreate).addSuccess(D.Template, { status: 201 }))
  .add(
    HttpApiEndpoint.post("uploadTemplate", "/templates/upload")
      .addSuccess(D.Template, { status: 201 })
      .annotate(
        OpenApi.Description,
        "multipart: `file` (DOCX or PPTX, recognised by content; other files 400 UNSUPPORTED_TEMPLATE; over 20 MiB 413), `name?`, `mode?`"
      )
  )
  .add(HttpApiEndpoint.get("template")`/templates/${id}`.addSuccess(D.Template))
  .add(HttpApiEndpoint.patch("updateTemplate")`/templates/${id}`.setPayload(D.TemplatePatch).addSuccess(D.Template))
  .add(HttpApiEndpoint.del("removeTemplate")`/templates/${id}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.get("templateHtml")`/templates/${id}/html`.addSuccess(HttpApiSchema.Text({ contentType: "text/html" })))
  .add(HttpApiEndpoint.get("templateThumbnail")`/templates/${id}/thumbnail`.addSuccess(HttpApiSchema.Uint8Array({ contentType: "image/png" })))
  .add(HttpApiEndpoint.put("setDefaultTemplate")`/templates/${id}/set-default`.addSuccess(D.Template))
  .add(HttpApiEndpoint.post("duplicateTemplate")`/templates/${id}/duplicate`.addSuccess(D.Template, { status: 201 }))
  .add(HttpApiEndpoint.post("reextractTemplate")`/templates/${id}/re-extract`.addSuccess(D.Template))
  .add(HttpApiEndpoint.get("slides")`/templates/${id}/slides`.addSuccess(D.SlideList))
  .add(HttpApiEndpoint.put("reorderSlides")`/templates/${id}/slides/order`.setPayload(D.SlideOrder).addSuccess(D.SlideList))
  .add(HttpApiEndpoint.get("slide")`/templates/${id}/slides/${slideIndex}`.addSuccess(D.Slide))
  .add(HttpApiEndpoint.patch("editSlide")`/templates/${id}/slides/${slideIndex}`.setPayload(D.SlideEdit).addSuccess(D.Slide))
  .add(HttpApiEndpoint.del("removeSlide")`/templates/${id}/slides/${slideIndex}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.get("exportJob")`/export/${jobId}`.addSuccess(D.ExportJob))
  .add(HttpApiEndpoint.get("download")`/export/${jobId}/download`.addSuccess(HttpApiSchema.Text({ contentType: "text/html" })))
  .addError(Conflict)
  .addError(Unprocessable)
  .addError(NotImplemented)
  .addError(PayloadTooLarge)
  .middleware(Security.Authentication)
  .prefix("/api/v1/docgen")
{}

import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Unprocessable } from "./Errors.js"
import * as K from "./Knowledge.js"
import { PageParams } from "./Pagination.js"
import * as Security from "./Security.js"

const kbId = HttpApiSchema.param("id", Schema.UUID)
const docId = HttpApiSchema.param("doc_id", Schema.UUID)

export class IngestionApi extends HttpApiGroup.make("ingestion")
  .add(
    HttpApiEndpoint.post("createKb", "/knowledge-bases").setPayload(K.KnowledgeBaseRequest).addSuccess(K.KnowledgeBase, { status: 201 }).annotate(
      Security.AllowedRoles,
      Security.BUILDERS
    )
  )
  .add(HttpApiEndpoint.get("listKbs", "/knowledge-bases").setUrlParams(PageParams).addSuccess(K.KnowledgeBasePage))
  .add(HttpApiEndpoint.get("getKb")`/knowledge-bases/${kbId}`.addSuccess(K.KnowledgeBase))
  .add(
    HttpApiEndpoint.patch("updateKb")`/knowledge-bases/${kbId}`.setPayload(K.KnowledgeBasePatch).addSuccess(K.KnowledgeBase).annotate(
      Security.AllowedRoles,
      Security.BUILDERS
    )
  )
  .add(HttpApiEndpoint.del("deleteKb")`/knowledge-bases/${kbId}`.addSuccess(HttpApiSchema.NoContent))
  .add(
    HttpApiEndpoint.post("addDocument")`/knowledge-bases/${kbId}/documents`
      .setPayload(K.DocumentRequest)
      .addSuccess(K.KbDocument, { status: 201 })
      .annotate(Security.AllowedRoles, Security.BUILDERS)
      .annotate(
        OpenApi.Description,
        "JSON {title, content, mime_type, folder_path}, or multipart/form-data with `file` (and `folder_path`). " +
          "Text, markdown, HTML, CSV, DOCX and PDF are extracted, chunked and indexed; the same title and folder make a new version."
      )
  )
  .add(HttpApiEndpoint.get("documents")`/knowledge-bases/${kbId}/documents`.setUrlParams(K.DocumentListParams).addSuccess(K.KbDocumentPage))
  .add(HttpApiEndpoint.get("document")`/knowledge-bases/${kbId}/documents/${docId}`.addSuccess(K.KbDocumentWithContent))
  .add(HttpApiEndpoint.del("deleteDocument")`/knowledge-bases/${kbId}/documents/${docId}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.post("search")`/knowledge-bases/${kbId}/search`.setPayload(K.SearchRequest).addSuccess(K.SearchResult))
  .addError(Unprocessable)
  .middleware(Security.Authentication)
  .prefix("/api/v1/ingestion")
{}

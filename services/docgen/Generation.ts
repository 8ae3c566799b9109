import { Effect, Either } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { traced } from "../../platform/Traced.js"
import { taskError } from "../../platform/workers/TaskErrors.js"
import { WorkerPool } from "../../platform/workers/WorkerPool.js"
import { ToolFailure, toolSource } from "../../runtime/tools/Tools.js"
import type { GenerateRequest } from "../../schemas/Docgen.js"
import { unprocessable } from "../../schemas/Errors.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { RunAccess } from "../ports/RunAccess.js"
import { DocgenTasks } from "./DocgenTasks.js"
import { Documents } from "./Documents.js"

export const UPDATE_DOCUMENT = "docgen.update_document"

/**
 * Generation: a run of the request's workflow (else the document's) started as the caller, with
 * the document, its sections, the section to write and the instructions as input; knowledge
 * bases named in the request are searched by its agent steps besides their own.
 */
export class Generation extends Effect.Service<Generation>()("Generation", {
  dependencies: [Documents.Default],
  effect: Effect.gen(function*() {
    const documents = yield* Documents
    const runs = yield* RunAccess
    const config = yield* AppConfig
    const workers = yield* WorkerPool

    const generate = (principal: Principal, id: string, body: typeof GenerateRequest.Type) =>
      Effect.gen(function*() {
        const doc = yield* documents.find(documents.writerOf(principal), id)
        const workflowId = body.workflow_id ?? doc.workflow_id
        if (workflowId === null) {
          return yield* unprocessable("DOCGEN_NO_WORKFLOW", "Name the AI Employee to write with (workflow_id), or bind one to the document")
        }
        yield* runs.admitStart(principal)
        const sections = yield* workers.run(DocgenTasks.sections, { html: doc.content_html }, { tenantId: principal.tenantId }).pipe(
          Effect.mapError((e) => taskError(e, "VALIDATION_ERROR", "content_html"))
        )
        const run = yield* runs.start(
          principal,
          workflowId as WorkflowId,
          {
            document: { id: doc.id, title: doc.title, content_html: doc.content_html, sections, version: doc.version },
            ...(body.section_title !== undefined ? { section_title: body.section_title } : {}),
            ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
            ...(body.knowledge_base_ids !== undefined ? { knowledge_base_ids: body.knowledge_base_ids } : {})
          },
          principal.authMethod === "api_key" ? "api" : "ui",
          { knowledgeBaseIds: body.knowledge_base_ids }
        )
        return { run_id: run.id, workflow_id: workflowId, stream_url: `${config.publicBaseUrl}/api/v1/workflow/runs/${run.id}/stream` }
      })

    return traced("Generation", { generate })
  })
}) {}

/**
 * `docgen.update_document`: how an AI Employee writes into a document of the user who started its
 * run. A section is replaced whole, or the whole document; each write is a version (`ai_create`
 * on an empty document, else `ai_edit`) carrying the run's id. A refused write (a lost table, an
 * unknown section) is the tool's answer, so the model can resend.
 */
export const UpdateDocumentToolLive = toolSource(Effect.map(Documents, (documents) => ({
  name: "docgen",
  actions: (_tenantId, actionIds) =>
    Effect.succeed(
      actionIds.includes(UPDATE_DOCUMENT)
        ? [{
          id: UPDATE_DOCUMENT,
          source: "docgen",
          description:
            "Write into a document. With target_section_id, content_html replaces that <section>'s entire inner HTML (send the full <table> for tables, never bare rows); without it, content_html is the whole document.",
          parameters: {
            type: "object",
            required: ["document_id", "content_html"],
            properties: {
              document_id: { type: "string" },
              target_section_id: { type: "string" },
              content_html: { type: "string" },
              change_description: { type: "string" }
            }
          },
          sideEffects: true
        }]
        : []
    ),
  mcpTools: () => Effect.succeed([]),
  invoke: (_spec, invocation) =>
    Effect.gen(function*() {
      if (invocation.userId === undefined || invocation.userId === null) {
        return yield* new ToolFailure({ message: "Only a run started by a person can write into their documents" })
      }
      const a = invocation.arguments
      const written = yield* Effect.either(documents.writeFromRun(
        { tenantId: invocation.tenantId, userId: invocation.userId, runId: invocation.runId },
        String(a.document_id ?? ""),
        {
          content_html: String(a.content_html ?? ""),
          ...(typeof a.target_section_id === "string" ? { target_section_id: a.target_section_id } : {}),
          ...(typeof a.change_description === "string" ? { change_description: a.change_description } : {})
        }
      ))
      if (Either.isLeft(written)) return yield* new ToolFailure({ message: `${written.left.code}: ${written.left.message}` })
      return { document_id: written.right.id, version: written.right.version, updated_section: a.target_section_id ?? null }
    })
})))

import { SqlClient } from "@effect/sql"
import { Effect, Either, Layer } from "effect"
import { keepRunning } from "../../../platform/Background.js"
import { derivedUuid } from "../../../platform/DerivedId.js"
import { makeIdlePause } from "../../../platform/IdlePause.js"
import { RunModule } from "../../../runtime/run/RunModule.js"
import { type DocumentArrival, KnowledgeDocuments } from "../../ports/KnowledgeDocuments.js"
import { matches } from "./Bindings.js"
import { bindingRows } from "./DocumentTriggers.js"

const BATCH = 50

/** The run one arrival starts for one binding: fixed, so an arrival dispatched twice finds it. */
const arrivalRunId = (arrivalId: string, bindingId: string) => derivedUuid(`document:${arrivalId}:${bindingId}`)

const runInput = (a: DocumentArrival) => ({
  document: {
    id: a.documentId,
    knowledge_base_id: a.knowledgeBaseId,
    title: a.title,
    folder_path: a.folderLabel,
    mime_type: a.mimeType,
    version: a.version
  }
})

/**
 * Starts the runs of document arrivals. Ingestion writes each stored version to its outbox in the
 * document's transaction; every process runs this loop, which claims indexed arrivals, creates
 * one run per matching enabled binding and marks the arrivals dispatched in one transaction,
 * then hands the runs to the kernel. A crash before that commit leaves the arrival to the next
 * claim; run ids derive from the arrival and the binding, so nothing starts twice.
 */
export const DocumentTriggerDispatchLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const knowledge = yield* KnowledgeDocuments
    const modules = yield* RunModule

    const dispatch = (arrival: DocumentArrival) =>
      Effect.gen(function*() {
        const bindings = yield* sql`SELECT * FROM document_triggers WHERE tenant_id = ${arrival.tenantId}
          AND knowledge_base_id = ${arrival.knowledgeBaseId} AND enabled`.pipe(bindingRows)
        const started: Array<string> = []
        for (const binding of bindings.filter((b) => matches(b, arrival))) {
          const created = yield* modules.create({
            id: arrivalRunId(arrival.id, binding.id),
            tenantId: arrival.tenantId,
            workflowId: binding.workflow_id,
            triggerType: "document",
            createdBy: null,
            apiKeyId: null,
            isDryRun: false,
            input: runInput(arrival)
          }).pipe(Effect.either)
          if (Either.isLeft(created)) {
            yield* sql`UPDATE document_triggers SET last_error = ${created.left.message} WHERE id = ${binding.id}`
          } else if (created.right.status === "pending") {
            started.push(created.right.id)
          }
        }
        return started
      })

    const claim = sql.withTransaction(Effect.gen(function*() {
      const arrivals = yield* knowledge.claimArrivals(BATCH)
      const started = yield* Effect.forEach(arrivals, dispatch)
      yield* knowledge.markDispatched(arrivals.map((a) => a.id))
      return { claimed: arrivals.length, started: started.flat() }
    })).pipe(Effect.withSpan("DocumentTriggers.dispatch"))

    const pause = makeIdlePause("500 millis", "2 seconds")
    const round = Effect.gen(function*() {
      const { claimed, started } = yield* claim
      yield* Effect.forEach(started, modules.launch, { discard: true })
      if (claimed > 0) yield* pause.worked
      if (claimed < BATCH) yield* pause.idle(knowledge.nextArrival)
    })

    yield* keepRunning("Dispatching document triggers", round)
  })
)

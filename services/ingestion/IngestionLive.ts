import { NodeHttpClient } from "@effect/platform-node"
import { Layer } from "effect"
import { isolated } from "../../platform/Isolated.js"
import { Embeddings } from "../../runtime/models/Embeddings.js"
import { Authentication } from "../../schemas/Security.js"
import { DocumentEvents, KnowledgeDocumentsLive } from "./DocumentEvents.js"
import { EmbeddingsRepo } from "./EmbeddingsRepo.js"
import { IngestionHttp } from "./http/IngestionHttp.js"
import { Knowledge, KnowledgeSearchLive, KnowledgeSnapshotsLive } from "./Knowledge.js"
import { KnowledgeRepo } from "./KnowledgeRepo.js"
import { SemanticIndex } from "./SemanticIndex.js"

/** Knowledge bases, and what others read of them: search_respond's retrieval, publish snapshots, document arrivals. */
export const IngestionLive = Layer.mergeAll(KnowledgeSearchLive, KnowledgeDocumentsLive).pipe(
  Layer.provideMerge(Knowledge.Default),
  Layer.provideMerge(DocumentEvents.Default),
  Layer.provideMerge(KnowledgeSnapshotsLive),
  Layer.provideMerge(SemanticIndex.Default),
  Layer.provideMerge(Layer.mergeAll(KnowledgeRepo.Default, EmbeddingsRepo.Default, Embeddings.layer)),
  Layer.provide(NodeHttpClient.layerUndici)
)

export const IngestionHttpLive = isolated(IngestionHttp, Authentication, Knowledge)

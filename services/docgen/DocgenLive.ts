import { Layer } from "effect"
import { isolated } from "../../platform/Isolated.js"
import { Authentication } from "../../schemas/Security.js"
import { Assistant } from "./Assistant.js"
import { Comments } from "./Comments.js"
import { Documents } from "./Documents.js"
import { Exports } from "./Exports.js"
import { Generation, UpdateDocumentToolLive } from "./Generation.js"
import { DocgenHttp } from "./http/DocgenHttp.js"
import { SectionProfiles } from "./SectionProfiles.js"
import { Templates } from "./Templates.js"

/** Document generation: documents and versions, generation by AI Employees (the update_document tool), the assistant, comments, export, section profiles. */
export const DocgenLive = Layer.mergeAll(
  Generation.Default,
  Comments.Default,
  Exports.Default,
  UpdateDocumentToolLive,
  Assistant.Default,
  SectionProfiles.Default,
  Templates.Default
).pipe(
  Layer.provideMerge(Documents.Default)
)

export const DocgenHttpLive = isolated(
  DocgenHttp,
  Authentication,
  Documents,
  Assistant,
  Comments,
  Exports,
  Generation,
  SectionProfiles,
  Templates
)

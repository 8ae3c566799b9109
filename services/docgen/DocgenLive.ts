import { Layer } from "effect"
import { Comments } from "./Comments.js"
import { Documents } from "./Documents.js"
import { Exports } from "./Exports.js"
import { Generation, UpdateDocumentToolLive } from "./Generation.js"
import { DocgenHttp } from "./http/DocgenHttp.js"

/** Document generation: documents and versions, generation by AI Employees (the update_document tool), comments, export. */
export const DocgenLive = Layer.mergeAll(Generation.Default, Comments.Default, Exports.Default, UpdateDocumentToolLive).pipe(
  Layer.provideMerge(Documents.Default)
)

export const DocgenHttpLive = DocgenHttp

import { folderMatches } from "../../../platform/FolderPath.js"
import type { DocumentArrival } from "../../ports/KnowledgeDocuments.js"

export interface BindingSpec {
  readonly knowledge_base_id: string
  readonly folder_prefix: string
  readonly mime_type_allowlist: ReadonlyArray<string>
  readonly fire_on: "created" | "updated" | "any"
}

const norm = (mime: string) => mime.trim().toLowerCase()

const firesOn = (fireOn: BindingSpec["fire_on"]) => fireOn === "any" ? new Set(["created", "updated"]) : new Set([fireOn])

/** The shortest folder path a prefix admits (`finance/` and `finance` both start at `/finance`). */
const base = (prefix: string) => `/${prefix.trim().split("/").filter((s) => s.length > 0).join("/")}`

/**
 * Two bindings overlap when one document could start both: the same knowledge base, one folder
 * prefix containing the other, intersecting mime types (an empty list is every type) and fire_on.
 */
export const overlaps = (a: BindingSpec, b: BindingSpec): boolean => {
  if (a.knowledge_base_id !== b.knowledge_base_id) return false
  if (!folderMatches(a.folder_prefix, base(b.folder_prefix)) && !folderMatches(b.folder_prefix, base(a.folder_prefix))) return false
  const mimeA = a.mime_type_allowlist.map(norm)
  const mimeB = b.mime_type_allowlist.map(norm)
  if (mimeA.length > 0 && mimeB.length > 0 && !mimeA.some((m) => mimeB.includes(m))) return false
  const fireB = firesOn(b.fire_on)
  return [...firesOn(a.fire_on)].some((f) => fireB.has(f))
}

/** Whether a stored document version starts a run of this binding. */
export const matches = (binding: BindingSpec, arrival: DocumentArrival): boolean =>
  binding.knowledge_base_id === arrival.knowledgeBaseId &&
  folderMatches(binding.folder_prefix, arrival.folderPath) &&
  (binding.mime_type_allowlist.length === 0 || binding.mime_type_allowlist.map(norm).includes(norm(arrival.mimeType))) &&
  firesOn(binding.fire_on).has(arrival.version === 1 ? "created" : "updated")

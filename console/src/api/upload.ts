import { Schema } from "effect"
import { KbDocument } from "../../../schemas/Knowledge"
import { ApiError, csrfHeaders } from "./client"

const decodeDocument = Schema.decodeUnknownSync(KbDocument)

/**
 * A file added to a knowledge base: multipart/form-data, which the contract describes in words
 * (its schema is the JSON form), so it is sent here and its answer decoded with the contract's
 * `KbDocument`.
 */
export const uploadDocument = async (kbId: string, file: File, folderPath: string) => {
  const form = new FormData()
  form.append("folder_path", folderPath)
  form.append("file", file, file.name)
  const response = await fetch(`/api/v1/ingestion/knowledge-bases/${encodeURIComponent(kbId)}/documents`, {
    method: "POST",
    body: form,
    headers: csrfHeaders()
  })
  const body: unknown = await response.json().catch(() => ({}))
  if (!response.ok) {
    const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>
    throw new ApiError(
      response.status,
      typeof b.code === "string" ? b.code : `HTTP_${response.status}`,
      typeof b.message === "string" ? b.message : `The upload failed (${response.status})`
    )
  }
  return decodeDocument(body)
}

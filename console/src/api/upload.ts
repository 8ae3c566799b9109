import { Schema } from "effect"
import { Dataset } from "../../../schemas/Eval"
import { KbDocument } from "../../../schemas/Knowledge"
import { ApiError, csrfHeaders } from "./client"

/**
 * A multipart/form-data request, which the contract describes in words (its schemas are of the
 * JSON forms), so it is sent here and its answer decoded with the contract's schema.
 */
const postForm = async <A, I>(path: string, form: FormData, schema: Schema.Schema<A, I>): Promise<A> => {
  const response = await fetch(path, { method: "POST", body: form, headers: csrfHeaders() })
  const body: unknown = await response.json().catch(() => ({}))
  if (!response.ok) {
    const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>
    throw new ApiError(
      response.status,
      typeof b.code === "string" ? b.code : `HTTP_${response.status}`,
      typeof b.message === "string" ? b.message : `The upload failed (${response.status})`
    )
  }
  return Schema.decodeUnknownSync(schema)(body)
}

/** A file added to a knowledge base. */
export const uploadDocument = (kbId: string, file: File, folderPath: string) => {
  const form = new FormData()
  form.append("folder_path", folderPath)
  form.append("file", file, file.name)
  return postForm(`/api/v1/ingestion/knowledge-bases/${encodeURIComponent(kbId)}/documents`, form, KbDocument)
}

/** A CSV uploaded as an evaluation dataset. */
export const uploadDataset = (workflowId: string, name: string, file: File) => {
  const form = new FormData()
  form.append("name", name)
  form.append("workflow_id", workflowId)
  form.append("file", file, file.name)
  return postForm("/api/v1/eval/datasets", form, Dataset)
}

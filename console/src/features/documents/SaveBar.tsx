import { useMutation, useQueryClient } from "@tanstack/react-query"
import { useState } from "react"
import type { Document } from "../../../../schemas/Docgen"
import { api, ApiError } from "../../api/client"
import { ErrorState } from "../../ui/States"

/**
 * Saving a version against the version this page loaded. When someone saved since (409
 * DOCUMENT_CHANGED), the person is asked what to do: keep theirs (saved over the newer one, which
 * stays in the history), or take the newer one and drop their changes; both texts are shown.
 */
export const SaveBar = ({ doc, html, dirty, onSaved, onTakeTheirs }: {
  readonly doc: Document
  readonly html: string
  readonly dirty: boolean
  readonly onSaved: (d: Document) => void
  readonly onTakeTheirs: (d: Document) => void
}) => {
  const queryClient = useQueryClient()
  const [note, setNote] = useState("")
  const [conflict, setConflict] = useState<Document | undefined>(undefined)
  const save = useMutation({
    mutationFn: (base: number) =>
      api((c) =>
        c.docgen.save({
          path: { id: doc.id },
          payload: { content_html: html, base_version: base, ...(note.trim() !== "" ? { change_description: note.trim() } : {}) }
        })
      ),
    onSuccess: (d) => {
      setConflict(undefined)
      setNote("")
      void queryClient.invalidateQueries({ queryKey: ["documents", "list"] })
      onSaved(d)
    },
    onError: async (e) => {
      if (e instanceof ApiError && e.status === 409) setConflict(await api((c) => c.docgen.get({ path: { id: doc.id } })))
    }
  })
  return (
    <div className="save-bar">
      <label>
        Change <input value={note} onChange={(e) => setNote(e.target.value)} placeholder="What changed (optional)" />
      </label>
      <button type="button" className="primary" disabled={!dirty || save.isPending} onClick={() => save.mutate(doc.version)}>Save version</button>
      <span className="muted small" role="status">{dirty ? "Unsaved changes" : `Version ${doc.version}`}</span>
      {conflict !== undefined && (
        <div className="conflict" role="alertdialog" aria-label="The document changed">
          <p>
            <strong>Someone saved version {conflict.version} after you opened version {doc.version}.</strong> Choose what to keep:
          </p>
          <div className="conflict-sides">
            <div>
              <h4>Yours</h4>
              <div className="document-preview" dangerouslySetInnerHTML={{ __html: html }} />
            </div>
            <div>
              <h4>Version {conflict.version}</h4>
              <div className="document-preview" dangerouslySetInnerHTML={{ __html: conflict.content_html ?? "" }} />
            </div>
          </div>
          <div className="card-actions">
            <button type="button" className="primary" onClick={() => save.mutate(conflict.version)}>Keep mine (save over it)</button>
            <button
              type="button"
              onClick={() => {
                setConflict(undefined)
                onTakeTheirs(conflict)
              }}
            >
              Take theirs
            </button>
          </div>
        </div>
      )}
      {save.error !== null && !(save.error instanceof ApiError && save.error.status === 409) && <ErrorState error={save.error} />}
    </div>
  )
}

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { useState } from "react"
import type { Document } from "../../../../schemas/Docgen"
import { api } from "../../api/client"
import { When } from "../../ui/Bits"
import { ErrorState, Query } from "../../ui/States"

const SOURCES: Record<string, string> = { ai_create: "written by AI", ai_edit: "edited by AI", manual_save: "saved", restore: "restored" }

/** A version's content, and its restore (a new latest version with that content). */
const VersionView = ({ doc, number, onRestored }: { readonly doc: Document; readonly number: number; readonly onRestored: (d: Document) => void }) => {
  const queryClient = useQueryClient()
  const version = useQuery({
    queryKey: ["documents", doc.id, "version", number],
    queryFn: () => api((c) => c.docgen.version({ path: { id: doc.id, versionNumber: number } }))
  })
  const restore = useMutation({
    mutationFn: () => api((c) => c.docgen.restore({ path: { id: doc.id, versionNumber: number } })),
    onSuccess: (d) => {
      void queryClient.invalidateQueries({ queryKey: ["documents"] })
      onRestored(d)
    }
  })
  return (
    <Query query={version}>
      {(v) => (
        <div className="version-view">
          <div className="document-preview" aria-label={`Version ${number}`} dangerouslySetInnerHTML={{ __html: v.content_html ?? "" }} />
          {number !== doc.version && (
            <button type="button" className="primary" disabled={restore.isPending} onClick={() => restore.mutate()}>Restore version {number}</button>
          )}
          {restore.error !== null && <ErrorState error={restore.error} />}
        </div>
      )}
    </Query>
  )
}

export const VersionsPanel = ({ doc, onRestored }: { readonly doc: Document; readonly onRestored: (d: Document) => void }) => {
  const versions = useQuery({
    queryKey: ["documents", doc.id, "versions", doc.version],
    queryFn: () => api((c) => c.docgen.versions({ path: { id: doc.id } }))
  })
  const [open, setOpen] = useState<number | undefined>(undefined)
  return (
    <section aria-label="Versions">
      <h3>Versions</h3>
      <Query query={versions}>
        {(l) => (
          <ol className="versions" reversed>
            {[...l.items].sort((a, b) => b.number - a.number).map((v) => (
              <li key={v.number}>
                <button type="button" className="link" aria-expanded={open === v.number} onClick={() => setOpen(open === v.number ? undefined : v.number)}>
                  Version {v.number}
                </button>{" "}
                <span className="muted small">
                  {SOURCES[v.source] ?? v.source} <When at={v.created_at} />
                  {v.change_description !== null && ` · ${v.change_description}`}
                </span>
                {open === v.number && (
                  <VersionView
                    doc={doc}
                    number={v.number}
                    onRestored={(d) => {
                      setOpen(undefined)
                      onRestored(d)
                    }}
                  />
                )}
              </li>
            ))}
          </ol>
        )}
      </Query>
    </section>
  )
}

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { useParams } from "@tanstack/react-router"
import { type FormEvent, useRef, useState } from "react"
import { api } from "../../api/client"
import { allows, useSession } from "../../api/session"
import { uploadDocument } from "../../api/upload"
import { When } from "../../ui/Bits"
import { Empty, ErrorState, Loading, Query } from "../../ui/States"

const size = (
  bytes: number
) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`)

/** A search as an agent step would make it: the passages found, each a numbered citation with its document and score. */
const SearchPreview = ({ kbId }: { readonly kbId: string }) => {
  const [query, setQuery] = useState("")
  const search = useMutation({
    mutationFn: (q: string) => api((c) => c.ingestion.search({ path: { id: kbId }, payload: { query: q, top_k: 5, min_score: 0 } }))
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (query.trim() !== "") search.mutate(query.trim())
  }
  return (
    <section className="card settings-form" aria-label="Search preview">
      <h2>Search preview</h2>
      <form className="inline-form" onSubmit={submit} role="search">
        <label>
          Question <input value={query} onChange={(e) => setQuery(e.target.value)} />
        </label>
        <button type="submit" disabled={search.isPending}>Search</button>
      </form>
      {search.isPending && <Loading label="Searching" />}
      {search.error !== null && <ErrorState error={search.error} />}
      {search.data !== undefined && (search.data.items.length === 0
        ? <p className="muted">Nothing found.</p>
        : (
          <ol className="citations">
            {search.data.items.map((hit, i) => (
              <li key={hit.chunk_id}>
                <strong>[{i + 1}] {hit.title}</strong> <span className="muted small">score {hit.score.toFixed(3)}</span>
                <blockquote>{hit.snippet}</blockquote>
              </li>
            ))}
          </ol>
        ))}
    </section>
  )
}

/**
 * One knowledge base: its documents by folder (status: indexed in so many passages, or no text
 * found), files uploaded into a folder, a text written here, a search preview.
 */
export const KnowledgeBasePage = () => {
  const { kbId } = useParams({ from: "/app/knowledge/$kbId" })
  const session = useSession()
  const canWrite = allows(session.data?.user.role, "build")
  const queryClient = useQueryClient()
  const kb = useQuery({ queryKey: ["knowledge-base", kbId], queryFn: () => api((c) => c.ingestion.getKb({ path: { id: kbId } })) })
  const docs = useQuery({
    queryKey: ["knowledge-base", kbId, "documents"],
    queryFn: () => api((c) => c.ingestion.documents({ path: { id: kbId }, urlParams: { page: 1, page_size: 100 } }))
  })
  const [folder, setFolder] = useState("/")
  const file = useRef<HTMLInputElement>(null)
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ["knowledge-base", kbId] })
    void queryClient.invalidateQueries({ queryKey: ["knowledge-bases"] })
  }
  const upload = useMutation({
    mutationFn: async (files: ReadonlyArray<File>) => {
      for (const f of files) await uploadDocument(kbId, f, folder)
    },
    onSuccess: () => {
      if (file.current !== null) file.current.value = ""
      refresh()
    },
    onSettled: refresh
  })
  const remove = useMutation({
    mutationFn: (docId: string) => api((c) => c.ingestion.deleteDocument({ path: { id: kbId, doc_id: docId } })),
    onSuccess: refresh
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const files = [...(file.current?.files ?? [])]
    if (files.length > 0) upload.mutate(files)
  }
  if (kb.isPending) return <Loading label="Loading the knowledge base" />
  if (kb.error !== null) return <ErrorState error={kb.error} retry={() => void kb.refetch()} />
  return (
    <article aria-labelledby="kb-name">
      <h1 id="kb-name">{kb.data.name}</h1>
      {kb.data.description !== "" && <p className="muted">{kb.data.description}</p>}
      {canWrite && (
        <form className="inline-form card" onSubmit={submit} aria-label="Upload documents">
          <label>
            Files (text, Markdown, HTML, CSV, DOCX, PDF) <input ref={file} type="file" multiple />
          </label>
          <label>
            Folder <input value={folder} onChange={(e) => setFolder(e.target.value)} placeholder="/policies/hr" />
          </label>
          <button type="submit" className="primary" disabled={upload.isPending}>{upload.isPending ? "Uploading…" : "Upload"}</button>
          {upload.error !== null && <ErrorState error={upload.error} />}
        </form>
      )}
      <Query query={docs} empty={(p) => (p.items.length === 0 ? <Empty>No documents yet.</Empty> : undefined)}>
        {(p) => (
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">Folder</th>
                <th scope="col">Title</th>
                <th scope="col">Status</th>
                <th scope="col">Size</th>
                <th scope="col">Updated</th>
                <th scope="col" />
              </tr>
            </thead>
            <tbody>
              {[...p.items].sort((a, b) => a.folder_path.localeCompare(b.folder_path) || a.title.localeCompare(b.title)).map((d) => (
                <tr key={d.id} data-document-id={d.id}>
                  <td className="mono">{d.folder_path}</td>
                  <td>
                    {d.title} <span className="muted small">{d.mime_type} · v{d.version}</span>
                  </td>
                  <td>
                    {d.chunk_count > 0
                      ? <span className="badge ok">indexed · {d.chunk_count} passage{d.chunk_count === 1 ? "" : "s"}</span>
                      : <span className="badge wait">no text found</span>}
                  </td>
                  <td>{size(d.size_bytes)}</td>
                  <td>
                    <When at={d.updated_at} />
                  </td>
                  <td>
                    {canWrite && (
                      <button
                        type="button"
                        className="link danger"
                        onClick={() => window.confirm(`Delete ${d.title}?`) && remove.mutate(d.id)}
                      >
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Query>
      {remove.error !== null && <ErrorState error={remove.error} />}
      <SearchPreview kbId={kbId} />
    </article>
  )
}

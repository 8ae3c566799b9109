import { useQuery, useQueryClient } from "@tanstack/react-query"
import { Link, useParams } from "@tanstack/react-router"
import type { Editor } from "@tiptap/react"
import { useCallback, useState } from "react"
import type { Document } from "../../../../schemas/Docgen"
import { api } from "../../api/client"
import { Query } from "../../ui/States"
import { TabPanel, Tabs } from "../../ui/Tabs"
import { AssistantPanel } from "./AssistantPanel"
import { CommentsPanel } from "./CommentsPanel"
import { DocumentEditor, type Selection } from "./DocumentEditor"
import { ExportButton } from "./ExportButton"
import { GeneratePanel } from "./GeneratePanel"
import { SaveBar } from "./SaveBar"
import { VersionsPanel } from "./VersionsPanel"
import "./documents.css"

const SIDES = ["comments", "assistant", "versions", "generate"] as const
type Side = (typeof SIDES)[number]
const NAMES: Record<Side, string> = { comments: "Comments", assistant: "Assistant", versions: "Versions", generate: "Generate" }

/** A loaded version of the document, edited here until saved; a restore or "take theirs" loads another. */
/** What outlives a reload of the document (a restore, a generation's new version): the open side tab and the generation followed. */
interface Kept {
  readonly side: Side
  readonly setSide: (s: Side) => void
  readonly generation: string | undefined
  readonly setGeneration: (runId: string) => void
}

const Workspace = ({ loaded, reload, kept }: { readonly loaded: Document; readonly reload: (d?: Document) => void; readonly kept: Kept }) => {
  const [doc, setDoc] = useState(loaded)
  const [html, setHtml] = useState(loaded.content_html ?? "")
  // What was last loaded or saved: the platform may normalise saved HTML, so "unsaved" compares with what was sent.
  const [baseline, setBaseline] = useState(loaded.content_html ?? "")
  const [selection, setSelection] = useState<Selection | undefined>(undefined)
  const [editor, setEditor] = useState<Editor | undefined>(undefined)
  const { side, setSide } = kept
  const onReady = useCallback((e: Editor) => setEditor(e), [])
  const dirty = html !== baseline
  return (
    <>
      <div className="toolbar">
        <SaveBar
          doc={doc}
          html={html}
          dirty={dirty}
          onSaved={(d) => {
            setDoc(d)
            setBaseline(html)
          }}
          onTakeTheirs={(d) => reload(d)}
        />
        <ExportButton docId={doc.id} />
      </div>
      <div className="document-grid">
        <div className="document-paper">
          <DocumentEditor
            key={`${doc.id}-${loaded.version}`}
            html={loaded.content_html ?? ""}
            onChange={setHtml}
            onSelect={setSelection}
            onReady={onReady}
            editable
          />
        </div>
        <aside>
          <Tabs tabs={SIDES} selected={side} onSelect={setSide} label="Document tools" name={(s) => NAMES[s]} idPrefix="doc" />
          <TabPanel idPrefix="doc" tab={side}>
            {side === "comments" && <CommentsPanel doc={doc} selection={selection} />}
            {side === "assistant" && <AssistantPanel doc={doc} selection={selection} editor={editor} />}
            {side === "versions" && <VersionsPanel doc={doc} onRestored={(d) => reload(d)} />}
            {side === "generate" && <GeneratePanel doc={doc} runId={kept.generation} onStarted={kept.setGeneration} onWritten={() => reload()} />}
          </TabPanel>
        </aside>
      </div>
    </>
  )
}

/** A document: its title and content edited, versions, comments, the assistant, generation and export. */
export const DocumentPage = () => {
  const { docId } = useParams({ from: "/app/documents/$docId" })
  const queryClient = useQueryClient()
  const [side, setSide] = useState<Side>("comments")
  const [generation, setGeneration] = useState<string | undefined>(undefined)
  const doc = useQuery({ queryKey: ["documents", "doc", docId], queryFn: () => api((c) => c.docgen.get({ path: { id: docId } })), refetchOnWindowFocus: false })
  const reload = (d?: Document) =>
    d?.content_html !== undefined
      ? queryClient.setQueryData(["documents", "doc", docId], d)
      : void queryClient.invalidateQueries({ queryKey: ["documents", "doc", docId] })
  return (
    <Query query={doc}>
      {(d) => (
        <section aria-labelledby="doc-title">
          <p className="muted">
            <Link to="/documents">Documents</Link>
          </p>
          <h1 id="doc-title">{d.title}</h1>
          <Workspace key={`${d.id}-${d.version}`} loaded={d} reload={reload} kept={{ side, setSide, generation, setGeneration }} />
        </section>
      )}
    </Query>
  )
}

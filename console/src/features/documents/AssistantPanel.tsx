import { useMutation } from "@tanstack/react-query"
import type { Editor } from "@tiptap/react"
import { type FormEvent, useState } from "react"
import type { Document } from "../../../../schemas/Docgen"
import { api } from "../../api/client"
import { ErrorState } from "../../ui/States"
import type { Selection } from "./DocumentEditor"

/** The document's assistant session: its first, made when there is none. */
const sessionOf = async (docId: string) => {
  const sessions = await api((c) => c.docgen.docSessions({ path: { id: docId } }))
  return sessions.items[0] ?? await api((c) => c.docgen.createDocSession({ path: { id: docId }, payload: { title: "Assistant" } }))
}

/**
 * The inline assistant: `edit` rewrites the selection as asked (the replacement shown, applied
 * in place on request); `qa` answers a question about the document.
 */
export const AssistantPanel = (
  { doc, selection, editor }: { readonly doc: Document; readonly selection: Selection | undefined; readonly editor: Editor | undefined }
) => {
  const [mode, setMode] = useState<"edit" | "qa">("edit")
  const [prompt, setPrompt] = useState("")
  const [target, setTarget] = useState<Selection | undefined>(undefined)
  const ask = useMutation({
    mutationFn: async (input: { readonly mode: "edit" | "qa"; readonly selection: Selection | undefined }) => {
      const session = await sessionOf(doc.id)
      return api((c) =>
        c.docgen.docMessage({
          path: { id: doc.id, sessionId: session.id },
          payload: {
            content: prompt,
            mode: input.mode,
            ...(input.mode === "edit" && input.selection !== undefined ? { selected_html: input.selection.html } : {})
          }
        })
      )
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    setTarget(selection)
    ask.mutate({ mode, selection })
  }
  const apply = () => {
    const replacement = ask.data?.reply.replacement_text
    if (editor === undefined || target === undefined || replacement == null) return
    editor.chain().focus().insertContentAt({ from: target.from, to: target.to }, replacement).run()
    ask.reset()
  }
  return (
    <section aria-label="Assistant">
      <h3>Assistant</h3>
      <form onSubmit={submit} className="settings-form">
        <div role="radiogroup" aria-label="Mode" className="inline-form">
          <label className="check">
            <input type="radio" checked={mode === "edit"} onChange={() => setMode("edit")} /> Edit the selection
          </label>
          <label className="check">
            <input type="radio" checked={mode === "qa"} onChange={() => setMode("qa")} /> Ask about the document
          </label>
        </div>
        <label>
          {mode === "edit" ? "How to change it" : "Question"} <textarea rows={2} value={prompt} onChange={(e) => setPrompt(e.target.value)} />
        </label>
        <button type="submit" disabled={prompt.trim() === "" || ask.isPending || (mode === "edit" && selection === undefined)}>
          {ask.isPending ? "Thinking…" : mode === "edit" ? "Suggest a change" : "Ask"}
        </button>
      </form>
      {ask.error !== null && <ErrorState error={ask.error} />}
      {ask.data !== undefined && (
        <div className="assistant-reply" aria-label="Assistant reply">
          {ask.data.reply.replacement_text != null
            ? (
              <>
                <p className="muted small">Replace “{target?.text.slice(0, 60)}” with:</p>
                <div className="document-preview" dangerouslySetInnerHTML={{ __html: ask.data.reply.replacement_text }} />
                <button type="button" className="primary" onClick={apply}>Apply</button>
              </>
            )
            : <p>{ask.data.reply.content}</p>}
        </div>
      )}
    </section>
  )
}

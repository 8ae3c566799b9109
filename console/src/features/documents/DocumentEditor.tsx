import { DOMSerializer } from "@tiptap/pm/model"
import { type Editor, EditorContent, useEditor } from "@tiptap/react"
import StarterKit from "@tiptap/starter-kit"
import { useEffect } from "react"
import { Section } from "./sectionNode"

/** What the rest of the page needs of the selection: its text, its HTML, where it is, and its section. */
export interface Selection {
  readonly text: string
  readonly html: string
  readonly from: number
  readonly to: number
  readonly sectionId: string | undefined
}

const selectionOf = (editor: Editor): Selection | undefined => {
  const { from, to, empty } = editor.state.selection
  if (empty) return undefined
  const slice = editor.state.doc.slice(from, to)
  const div = document.createElement("div")
  div.append(DOMSerializer.fromSchema(editor.schema).serializeFragment(slice.content))
  let sectionId: string | undefined
  const $from = editor.state.doc.resolve(from)
  for (let depth = $from.depth; depth > 0; depth--) {
    const node = $from.node(depth)
    if (node.type.name === "section" && typeof node.attrs.id === "string") {
      sectionId = node.attrs.id
      break
    }
  }
  const text = editor.state.doc.textBetween(from, to, " ")
  return { text, html: div.innerHTML === "" ? text : div.innerHTML, from, to, sectionId }
}

/**
 * The rich-text editor of `content_html` (TipTap over ProseMirror): headings, lists, emphasis,
 * quotes, code, and the document's `<section id>` structure kept. No style is injected (the
 * console's Content-Security-Policy allows only its own stylesheet).
 */
export const DocumentEditor = ({ html, onChange, onSelect, onReady, editable }: {
  readonly html: string
  readonly onChange: (html: string) => void
  readonly onSelect: (selection: Selection | undefined) => void
  readonly onReady: (editor: Editor) => void
  readonly editable: boolean
}) => {
  const editor = useEditor({
    extensions: [StarterKit, Section],
    content: html,
    injectCSS: false,
    editable,
    editorProps: { attributes: { "aria-label": "Document content", class: "document-body" } },
    onUpdate: ({ editor: e }) => onChange(e.getHTML()),
    onSelectionUpdate: ({ editor: e }) => onSelect(selectionOf(e))
  })
  useEffect(() => {
    if (editor !== null) onReady(editor)
  }, [editor, onReady])
  useEffect(() => {
    editor?.setEditable(editable)
  }, [editor, editable])
  return <EditorContent editor={editor} />
}

import { mergeAttributes, Node } from "@tiptap/react"

/**
 * A document's `<section id>`: the unit the update_document rules replace (target_section_id), so
 * the editor keeps each section and its id through every edit instead of flattening it away.
 */
export const Section = Node.create({
  name: "section",
  group: "block",
  content: "block+",
  defining: true,
  addAttributes() {
    return {
      id: {
        default: null,
        parseHTML: (element: HTMLElement) => element.getAttribute("id"),
        renderHTML: (attributes: Record<string, unknown>) => (typeof attributes.id === "string" ? { id: attributes.id } : {})
      }
    }
  },
  parseHTML() {
    return [{ tag: "section" }]
  },
  renderHTML({ HTMLAttributes }) {
    return ["section", mergeAttributes(HTMLAttributes), 0]
  }
})

import { type DefaultTreeAdapterMap, parseFragment } from "parse5"
import type { OutlineSection } from "../../schemas/Docgen.js"

type ParentNode = DefaultTreeAdapterMap["parentNode"]

interface Item {
  readonly title: string
  readonly level: number
}

const slug = (title: string, used: Set<string>) => {
  const base = title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || "section"
  let id = base
  for (let n = 2; used.has(id); n++) id = `${base}-${n}`
  used.add(id)
  return id
}

/** Flat items (title, depth) to a tree: each item under the nearest earlier item of a lower level. */
const tree = (items: ReadonlyArray<Item>): ReadonlyArray<OutlineSection> => {
  const used = new Set<string>()
  const roots: Array<{ id: string; title: string; level: number; children: Array<OutlineSection> }> = []
  const stack: Array<{ id: string; title: string; level: number; children: Array<OutlineSection> }> = []
  for (const item of items) {
    const node = { id: slug(item.title, used), title: item.title, level: item.level, children: [] as Array<OutlineSection> }
    while (stack.length > 0 && stack.at(-1)!.level >= item.level) stack.pop()
    if (stack.length === 0) roots.push(node)
    else stack.at(-1)!.children.push(node)
    stack.push(node)
  }
  return roots
}

const textOf = (node: ParentNode): string =>
  node.childNodes.map((
    c
  ) => (c.nodeName === "#text" && "value" in c ? String(c.value) : "childNodes" in c && !["ul", "ol"].includes(c.nodeName) ? textOf(c as ParentNode) : ""))
    .join("")

/** An HTML outline: headings h1-h6 by their level; list items nested under the heading and list above them. */
export const outlineFromHtml = (html: string): ReadonlyArray<OutlineSection> => {
  const items: Array<Item> = []
  let headingLevel = 0
  const visit = (node: ParentNode, listDepth: number) => {
    for (const child of node.childNodes) {
      if (!("tagName" in child)) continue
      const el = child
      const heading = /^h([1-6])$/.exec(el.tagName)
      if (heading !== null) {
        headingLevel = Number(heading[1])
        const title = textOf(el).replace(/\s+/g, " ").trim()
        if (title !== "") items.push({ title, level: headingLevel })
      } else if (el.tagName === "li") {
        const title = textOf(el).replace(/\s+/g, " ").trim()
        if (title !== "") items.push({ title, level: headingLevel + listDepth })
        visit(el, listDepth + 1)
      } else if (el.tagName === "ul" || el.tagName === "ol") {
        visit(el, listDepth === 0 ? 1 : listDepth)
      } else {
        visit(el, listDepth)
      }
    }
  }
  visit(parseFragment(html), 0)
  return tree(items)
}

/** Markdown: `#` headings by their count; `-`, `*` or `1.` items nested by indentation under them. */
export const outlineFromMarkdown = (markdown: string): ReadonlyArray<OutlineSection> => {
  const items: Array<Item> = []
  let headingLevel = 0
  for (const line of markdown.split(/\r?\n/)) {
    const heading = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line)
    if (heading !== null) {
      headingLevel = heading[1].length
      items.push({ title: heading[2], level: headingLevel })
      continue
    }
    const item = /^(\s*)(?:[-*+]|\d+[.)])\s+(.+)$/.exec(line)
    if (item !== null) items.push({ title: item[2].trim(), level: headingLevel + 1 + Math.floor(item[1].replace(/\t/g, "  ").length / 2) })
  }
  return tree(items)
}

import * as Either from "effect/Either"
import { type DefaultTreeAdapterMap, parseFragment, serialize } from "parse5"
import sanitizeHtml from "sanitize-html"

type Node = DefaultTreeAdapterMap["childNode"]
type ParentNode = DefaultTreeAdapterMap["parentNode"]
type Element = DefaultTreeAdapterMap["element"]

const TABLE_TAGS = ["table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "colgroup", "col"]

export type UpdateProblem =
  | { readonly _tag: "TableLoss"; readonly submitted: number; readonly parsed: number }
  | { readonly _tag: "SectionNotFound"; readonly sectionId: string }

/** Sanitised: no scripts, styles, event handlers or `javascript:` URLs; sections keep their ids. */
export const sanitize = (html: string) =>
  sanitizeHtml(html, {
    allowedTags: [
      ...sanitizeHtml.defaults.allowedTags,
      "section",
      "img",
      "figure",
      "figcaption",
      "span",
      "del",
      "ins",
      "sup",
      "sub",
      "u",
      "s",
      "mark",
      "colgroup",
      "col",
      "details",
      "summary"
    ],
    allowedAttributes: {
      "*": ["id", "class", "title", "lang", "dir", "data-*", "colspan", "rowspan", "scope", "align"],
      a: ["href", "name", "target", "rel"],
      img: ["src", "alt", "width", "height"]
    },
    allowedSchemes: ["http", "https", "mailto", "tel", "data"],
    allowedSchemesByTag: { a: ["http", "https", "mailto", "tel"], img: ["http", "https", "data"] },
    allowProtocolRelative: false
  })

/** Opening table-structure tags as written in the markup. */
const countSubmitted = (html: string) => (html.match(new RegExp(`<(${TABLE_TAGS.join("|")})(?=[\\s>/])`, "gi")) ?? []).length

const isElement = (node: Node): node is Element => "tagName" in node

/**
 * Markup parsed as the inside of a `<section>`, the way a browser parses it there (without a
 * context parse5 parses as a `<template>`, where bare rows are allowed).
 */
const sectionContext = parseFragment("<section></section>").childNodes[0] as Element
const parseInSection = (html: string) => parseFragment(sectionContext, html, {})

const walk = (node: ParentNode, visit: (el: Element) => boolean | void): Element | undefined => {
  for (const child of node.childNodes) {
    if (!isElement(child)) continue
    if (visit(child) === true) return child
    const found = walk(child, visit)
    if (found !== undefined) return found
  }
  return undefined
}

const countParsed = (fragment: ParentNode) => {
  let n = 0
  walk(fragment, (el) => {
    if (TABLE_TAGS.includes(el.tagName)) n++
  })
  return n
}

/**
 * The update_document rules: content replaces, never appends or merges. With `sectionId`, the
 * `<section id>` of the current document gets `content` as its entire inner HTML; without, the
 * whole document is `content`. The submitted markup is parsed the way a browser would (parse5);
 * table-structure tags that parsing dropped (rows outside a table) refuse the update. The result
 * is sanitised.
 */
export const applyUpdate = (current: string, content: string, sectionId: string | undefined): Either.Either<string, UpdateProblem> => {
  const submitted = countSubmitted(content)
  const parsed = parseInSection(content)
  const kept = countParsed(parsed)
  if (kept < submitted) return Either.left({ _tag: "TableLoss", submitted, parsed: kept })
  if (sectionId === undefined) return Either.right(sanitize(serialize(parsed)))
  const document = parseInSection(current)
  const section = walk(document, (el) => el.tagName === "section" && el.attrs.some((a) => a.name === "id" && a.value === sectionId))
  if (section === undefined) return Either.left({ _tag: "SectionNotFound", sectionId })
  section.childNodes = parsed.childNodes.map((child) => Object.assign(child, { parentNode: section }))
  return Either.right(sanitize(serialize(document)))
}

/** The document's sections: id and the text of their first heading. */
export const sectionsOf = (html: string) => {
  const out: Array<{ id: string; title: string }> = []
  walk(parseInSection(html), (el) => {
    if (el.tagName !== "section") return
    const id = el.attrs.find((a) => a.name === "id")?.value
    if (id === undefined) return
    const heading = walk(el, (h) => /^h[1-6]$/.test(h.tagName))
    const text = (node: ParentNode): string =>
      node.childNodes.map((c) => ("value" in c && c.nodeName === "#text" ? String(c.value) : "childNodes" in c ? text(c as ParentNode) : "")).join("")
    out.push({ id, title: heading !== undefined ? text(heading).trim() : "" })
  })
  return out
}

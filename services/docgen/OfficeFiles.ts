import JSZip from "jszip"
import mammoth from "mammoth"
import { refuse } from "../../platform/workers/TaskRefusal.js"
import { sanitize } from "./HtmlUpdate.js"
import { slotsIn } from "./Slots.js"

// Worker side (OfficeTasks.ts): called on archives checkedZip has already inflated within its caps.

export type OfficeKind = "docx" | "pptx"

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]

const unescapeXml = (s: string) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&apos;/g, "'").replace(/&amp;/g, "&")
const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const escapeHtml = escapeXml

/** DOCX or PPTX by content (a zip holding word/document.xml or ppt/presentation.xml), whatever the file is called. */
export const kindOf = async (bytes: Uint8Array): Promise<OfficeKind | undefined> => {
  if (!ZIP_MAGIC.every((b, i) => bytes[i] === b)) return undefined
  const zip = await JSZip.loadAsync(bytes).catch(() => undefined)
  if (zip === undefined) return undefined
  if (zip.file("word/document.xml") !== null) return "docx"
  if (zip.file("ppt/presentation.xml") !== null) return "pptx"
  return undefined
}

interface SlideRef {
  readonly id: string
  readonly rid: string
  readonly path: string
}

/** Slides a presentation may list. */
export const MAX_SLIDES = 1_000

/**
 * The slides of a presentation in their order: sldIdLst entries and the files their
 * relationships name. A slide file listed twice is refused (thousands of entries naming one slide
 * would make every read of the presentation read it thousands of times).
 */
const slideRefs = async (zip: JSZip): Promise<Array<SlideRef>> => {
  const presentation = await zip.file("ppt/presentation.xml")!.async("string")
  const rels = await zip.file("ppt/_rels/presentation.xml.rels")?.async("string") ?? ""
  const targets = new Map(
    [...rels.matchAll(/<Relationship\b[^>]*>/g)].map((m) => [/Id="([^"]+)"/.exec(m[0])?.[1] ?? "", /Target="([^"]+)"/.exec(m[0])?.[1] ?? ""])
  )
  const list = /<p:sldIdLst>([\s\S]*?)<\/p:sldIdLst>/.exec(presentation)?.[1] ?? ""
  const refs = [...list.matchAll(/<p:sldId\b[^>]*\/>/g)].map((m) => {
    const rid = /r:id="([^"]+)"/.exec(m[0])?.[1] ?? ""
    const target = targets.get(rid) ?? ""
    return { id: m[0], rid, path: target.startsWith("/") ? target.slice(1) : `ppt/${target}` }
  })
  if (refs.length > MAX_SLIDES) refuse("INPUT_LIMIT_EXCEEDED", `The presentation lists more than ${MAX_SLIDES} slides`)
  if (new Set(refs.map((r) => r.path)).size !== refs.length) refuse("UNSUPPORTED_TEMPLATE", "The presentation lists one slide more than once")
  return refs
}

const textsOf = (xml: string) => [...xml.matchAll(/<a:t>([\s\S]*?)<\/a:t>/g)].map((m) => unescapeXml(m[1]))

export interface SlideText {
  readonly index: number
  readonly title: string
  readonly texts: ReadonlyArray<string>
}

export const slidesOf = async (bytes: Uint8Array): Promise<Array<SlideText>> => {
  const zip = await JSZip.loadAsync(bytes)
  const refs = await slideRefs(zip)
  return Promise.all(refs.map(async (ref, index) => {
    const texts = textsOf(await zip.file(ref.path)?.async("string") ?? "")
    return { index: index + 1, title: texts[0] ?? `Slide ${index + 1}`, texts }
  }))
}

/**
 * What a template shows: DOCX through mammoth (sanitised like documents: a hyperlink to
 * `javascript:` is not a link), PPTX as one section per slide with its text; and its slots.
 */
export const extract = async (kind: OfficeKind, bytes: Uint8Array) => {
  if (kind === "docx") {
    const buffer = Buffer.from(bytes)
    const html = sanitize((await mammoth.convertToHtml({ buffer })).value)
    const text = (await mammoth.extractRawText({ buffer })).value
    return { html, slots: slotsIn(text), slideCount: null as number | null, text }
  }
  const slides = await slidesOf(bytes)
  const html = slides.map((s) =>
    `<section class="slide" id="slide-${s.index}"><h2>${escapeHtml(s.title)}</h2>${s.texts.slice(1).map((t) => `<p>${escapeHtml(t)}</p>`).join("")}</section>`
  ).join("\n")
  const text = slides.flatMap((s) => s.texts).join("\n")
  return { html, slots: slotsIn(text), slideCount: slides.length, text }
}

const rewrite = async (bytes: Uint8Array, change: (zip: JSZip, refs: Array<SlideRef>) => Promise<void>) => {
  const zip = await JSZip.loadAsync(bytes)
  await change(zip, await slideRefs(zip))
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE" })
}

const setSlideList = async (zip: JSZip, refs: ReadonlyArray<SlideRef>) => {
  const presentation = await zip.file("ppt/presentation.xml")!.async("string")
  zip.file("ppt/presentation.xml", presentation.replace(/<p:sldIdLst>[\s\S]*?<\/p:sldIdLst>/, `<p:sldIdLst>${refs.map((r) => r.id).join("")}</p:sldIdLst>`))
}

/** The slides in a new order (`order` lists every slide's current 1-based index once). */
export const reorderSlides = (bytes: Uint8Array, order: ReadonlyArray<number>) =>
  rewrite(bytes, (zip, refs) => setSlideList(zip, order.map((n) => refs[n - 1])))

/** Removes a slide: its entry, its relationship, its part and its content type. */
export const deleteSlide = (bytes: Uint8Array, index: number) =>
  rewrite(bytes, async (zip, refs) => {
    const gone = refs[index - 1]
    await setSlideList(zip, refs.filter((r) => r !== gone))
    const relsPath = "ppt/_rels/presentation.xml.rels"
    const rels = await zip.file(relsPath)!.async("string")
    zip.file(relsPath, rels.replace(new RegExp(`<Relationship\\b[^>]*Id="${gone.rid}"[^>]*/>`), ""))
    zip.remove(gone.path)
    zip.remove(gone.path.replace(/slides\/(slide\d+\.xml)$/, "slides/_rels/$1.rels"))
    const types = await zip.file("[Content_Types].xml")!.async("string")
    zip.file("[Content_Types].xml", types.replace(new RegExp(`<Override\\b[^>]*PartName="/${gone.path}"[^>]*/>`), ""))
  })

/** Replaces a slide's text runs in order (runs beyond `texts` keep their text). */
export const editSlide = (bytes: Uint8Array, index: number, texts: ReadonlyArray<string>) =>
  rewrite(bytes, async (zip, refs) => {
    const ref = refs[index - 1]
    const xml = await zip.file(ref.path)!.async("string")
    let n = 0
    zip.file(
      ref.path,
      xml.replace(/<a:t>[\s\S]*?<\/a:t>/g, (run) => {
        const next = texts[n++]
        return next === undefined ? run : `<a:t>${escapeXml(next)}</a:t>`
      })
    )
  })

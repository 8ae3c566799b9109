import { refuse } from "../../platform/workers/TaskRefusal.js"
import { checkedZip } from "../../platform/workers/ZipCaps.js"
import { deleteSlide, editSlide, extract, kindOf, reorderSlides, slidesOf } from "./OfficeFiles.js"
import { thumbnailPng } from "./Thumbnail.js"

// Runs on a thread of the worker pool (platform/workers): office files are zip archives a tenant
// uploads; they are inflated within the caps of checkedZip and parsed here, never on the event loop.

const NOT_OFFICE = { code: "UNSUPPORTED_TEMPLATE", message: "Templates are DOCX or PPTX files (this file is neither, whatever its name)" }

/** What a template file is and shows: its kind, HTML (sanitised), text, slots and slide count. */
export const readTemplate = async ({ bytes }: { readonly bytes: Uint8Array }) => {
  const safe = checkedZip(bytes, NOT_OFFICE)
  const kind = await kindOf(safe)
  if (kind === undefined) return refuse(NOT_OFFICE.code, NOT_OFFICE.message)
  return { kind, ...(await extract(kind, safe)) }
}

export const slides = ({ bytes }: { readonly bytes: Uint8Array }) => slidesOf(checkedZip(bytes, NOT_OFFICE))

export type SlideChange =
  | { readonly op: "reorder"; readonly order: ReadonlyArray<number> }
  | { readonly op: "edit"; readonly index: number; readonly texts: ReadonlyArray<string> }
  | { readonly op: "delete"; readonly index: number }

/** The presentation with one change made: its new file. */
export const rewriteSlides = ({ bytes, change }: { readonly bytes: Uint8Array; readonly change: SlideChange }) => {
  const safe = checkedZip(bytes, NOT_OFFICE)
  switch (change.op) {
    case "reorder":
      return reorderSlides(safe, change.order)
    case "edit":
      return editSlide(safe, change.index, change.texts)
    case "delete":
      return deleteSlide(safe, change.index)
  }
}

export const thumbnail = (template: { readonly name: string; readonly kind: string; readonly text: string }) => new Uint8Array(thumbnailPng(template))

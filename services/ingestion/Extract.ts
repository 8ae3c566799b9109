import { parse as parseCsv } from "csv-parse/sync"
import { Effect, Schema } from "effect"
import { convert as htmlToText } from "html-to-text"
import mammoth from "mammoth"
import { extractText, getDocumentProxy } from "unpdf"

export class UnsupportedDocument extends Schema.TaggedError<UnsupportedDocument>()("UnsupportedDocument", {
  message: Schema.String
}) {}

const byExtension: Record<string, string> = {
  txt: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  html: "text/html",
  htm: "text/html",
  csv: "text/csv",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pdf: "application/pdf"
}

export const SUPPORTED_TYPES = [...new Set(Object.values(byExtension))]

/** The MIME type we treat a document as: the declared one when we know it, else from the name. */
export const documentType = (declared: string | undefined, filename: string | undefined) => {
  const clean = declared?.split(";")[0]?.trim().toLowerCase()
  if (clean !== undefined && SUPPORTED_TYPES.includes(clean)) return clean
  const ext = filename?.split(".").pop()?.toLowerCase()
  return ext !== undefined ? byExtension[ext] : undefined
}

/** Plain text from a document (html-to-text, csv-parse, mammoth, unpdf). */
export const extractDocumentText = (mimeType: string, bytes: Uint8Array) =>
  Effect.tryPromise({
    try: async () => {
      switch (mimeType) {
        case "text/plain":
        case "text/markdown":
          return new TextDecoder().decode(bytes)
        case "text/html":
          return htmlToText(new TextDecoder().decode(bytes), { wordwrap: false })
        case "text/csv": {
          const rows = parseCsv(new TextDecoder().decode(bytes), { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>
          return rows.map((row) => Object.entries(row).map(([k, v]) => `${k}: ${v}`).join("; ")).join("\n")
        }
        case "application/vnd.openxmlformats-officedocument.wordprocessingml.document":
          return (await mammoth.extractRawText({ buffer: Buffer.from(bytes) })).value
        case "application/pdf": {
          const pdf = await getDocumentProxy(new Uint8Array(bytes))
          const { text } = await extractText(pdf, { mergePages: true })
          return text
        }
        default:
          throw new Error(`unsupported type ${mimeType}`)
      }
    },
    catch: (e) => new UnsupportedDocument({ message: `Could not read the ${mimeType} document: ${String((e as Error).message ?? e)}` })
  }).pipe(
    // Files may carry NUL characters (PDF streams, binary noise); text that PostgreSQL stores may not.
    Effect.map((text) => text.replaceAll("\0", ""))
  )

const CHUNK = 800
const OVERLAP = 150

/** Paragraph-aware chunks of about 800 characters, each overlapping the previous by about 150. */
export const chunkText = (text: string): ReadonlyArray<string> => {
  const clean = text.replace(/\r/g, "").replace(/[ \t]+/g, " ").replace(/\n{3,}/g, "\n\n").trim()
  if (clean.length === 0) return []
  const chunks: Array<string> = []
  let start = 0
  while (start < clean.length) {
    let end = Math.min(clean.length, start + CHUNK)
    if (end < clean.length) {
      const paragraph = clean.lastIndexOf("\n\n", end)
      const sentence = clean.lastIndexOf(". ", end)
      const cut = paragraph > start + CHUNK / 2 ? paragraph : sentence > start + CHUNK / 2 ? sentence + 1 : end
      end = cut
    }
    chunks.push(clean.slice(start, end).trim())
    if (end >= clean.length) break
    start = Math.max(end - OVERLAP, start + 1)
  }
  return chunks.filter((c) => c.length > 0)
}

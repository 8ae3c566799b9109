import { parse as parseCsv } from "csv-parse/sync"
import { convert as htmlToText } from "html-to-text"
import mammoth from "mammoth"
import { createHash } from "node:crypto"
import { extractText, getDocumentProxy } from "unpdf"
import { refuse } from "../../platform/workers/TaskRefusal.js"
import { checkedZip } from "../../platform/workers/ZipCaps.js"
import { chunkText } from "./Chunks.js"

// Runs on a thread of the worker pool (platform/workers): uploaded documents are parsed here,
// never on the event loop that serves requests and runs.

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

/** Plain text from a document (html-to-text, csv-parse, mammoth on a zip inflated within its caps, unpdf). */
const textOf = async (mimeType: string, bytes: Uint8Array): Promise<string> => {
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
    case DOCX: {
      const safe = checkedZip(bytes, { code: "UNREADABLE_DOCUMENT", message: "Could not read the DOCX document: it is not a zip archive" })
      return (await mammoth.extractRawText({ buffer: Buffer.from(safe) })).value
    }
    case "application/pdf": {
      const pdf = await getDocumentProxy(new Uint8Array(bytes))
      const { text } = await extractText(pdf, { mergePages: true })
      return text
    }
    default:
      return refuse("UNSUPPORTED_DOCUMENT", `Documents of type ${mimeType} are not read`)
  }
}

/** A document's text (without NUL characters, which PostgreSQL does not store), its SHA-256 and its chunks. */
export const readDocument = async ({ mimeType, bytes }: { readonly mimeType: string; readonly bytes: Uint8Array }) => {
  let text: string
  try {
    text = (await textOf(mimeType, bytes)).replaceAll("\0", "")
  } catch (error) {
    if (error instanceof Error && error.name === "TaskRefusal") throw error
    return refuse("UNREADABLE_DOCUMENT", `Could not read the ${mimeType} document: ${error instanceof Error ? error.message : String(error)}`)
  }
  return { text, hash: createHash("sha256").update(text).digest("hex"), chunks: chunkText(text) }
}

export const chunk = ({ text }: { readonly text: string }) => chunkText(text)

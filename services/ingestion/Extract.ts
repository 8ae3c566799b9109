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

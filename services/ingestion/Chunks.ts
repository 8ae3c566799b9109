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
      // Only the chunk's second half is searched: lastIndexOf over the whole text made this quadratic.
      const from = start + CHUNK / 2
      const half = clean.slice(from + 1, end + 2)
      const paragraph = half.lastIndexOf("\n\n")
      const sentence = half.lastIndexOf(". ")
      const cut = paragraph >= 0 ? from + 1 + paragraph : sentence >= 0 ? from + 1 + sentence + 1 : end
      end = cut
    }
    chunks.push(clean.slice(start, end).trim())
    if (end >= clean.length) break
    start = Math.max(end - OVERLAP, start + 1)
  }
  return chunks.filter((c) => c.length > 0)
}

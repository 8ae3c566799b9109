/**
 * Folder paths are compared in one canonical form: a leading `/`, no trailing `/`, no empty
 * segments (`finance/2024`, `/finance/2024` and `/finance//2024/` are the same folder; the root is
 * `/`). What the client sent is kept for display.
 */
export const canonicalFolder = (path: string): string => {
  const segments = path.trim().split("/").filter((s) => s.length > 0)
  return `/${segments.join("/")}`
}

/**
 * How a `folder_prefix` filter reads: `finance/` (ending in `/`) is that folder and everything
 * under it; `finance/20` is a plain prefix of the canonical path (matching `/finance/2024`).
 */
export const folderFilter = (prefix: string): { readonly exact: string | undefined; readonly like: string } => {
  const canonical = canonicalFolder(prefix)
  const escaped = canonical.replace(/[\\%_]/g, "\\$&")
  if (canonical === "/") return { exact: undefined, like: "/%" }
  return prefix.trim().endsWith("/") ? { exact: canonical, like: `${escaped}/%` } : { exact: undefined, like: `${escaped}%` }
}

/** The same rule as `folderFilter`, for matching in memory (document triggers). */
export const folderMatches = (prefix: string, path: string): boolean => {
  const folder = canonicalFolder(path)
  const canonical = canonicalFolder(prefix)
  if (canonical === "/") return true
  return prefix.trim().endsWith("/") ? folder === canonical || folder.startsWith(`${canonical}/`) : folder.startsWith(canonical)
}

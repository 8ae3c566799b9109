/** Opaque page tokens: a small JSON value, base64url-encoded; the caller checks what comes back. */
export const encodePageToken = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

export const decodePageToken = (token: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"))
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

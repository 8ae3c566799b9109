/** A JSON object (not null, not an array). */
export const isRecord = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === "object" && !Array.isArray(u)

/** `u` when it is a JSON object, else an empty one. */
export const asRecord = (u: unknown): Record<string, unknown> => (isRecord(u) ? u : {})

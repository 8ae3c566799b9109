/** The `{{slot}}` names a template's text holds, each once. */
export const slotsIn = (text: string) => [...new Set([...text.matchAll(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g)].map((m) => m[1]))]

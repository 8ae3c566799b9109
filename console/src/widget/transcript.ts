/** One line of the visitor's conversation as the widget keeps it (the platform keeps the session; the visitor has no account to list it with). */
export interface Line {
  readonly role: "user" | "assistant"
  content: string
  /** The assistant message's id, for feedback. */
  id?: string
  status: "pending" | "done" | "failed"
  sources: ReadonlyArray<{ readonly title?: string; readonly document_id: string }>
  buttons: ReadonlyArray<{ readonly label: string; readonly value: string }>
  sentiment?: "positive" | "negative"
  category?: string
}

export interface Visitor {
  readonly externalUserId: string
  conversationId: string
  lines: Array<Line>
}

const KEEP = 100

/** The visitor's identity, conversation and its lines, in this site's storage for this AI Employee (a fresh one when storage is refused). */
export const loadVisitor = (workflowId: string): Visitor => {
  const key = `bp-chat-widget:${workflowId}`
  const stored = (() => {
    const text = globalThis.localStorage?.getItem(key)
    if (text == null) return undefined
    const parsed: unknown = JSON.parse(text)
    return typeof parsed === "object" && parsed !== null && "externalUserId" in parsed ? parsed as Visitor : undefined
  })()
  return stored ?? { externalUserId: `visitor-${crypto.randomUUID()}`, conversationId: crypto.randomUUID(), lines: [] }
}

export const saveVisitor = (workflowId: string, visitor: Visitor) => {
  const kept = { ...visitor, lines: visitor.lines.filter((l) => l.status !== "pending").slice(-KEEP) }
  globalThis.localStorage?.setItem(`bp-chat-widget:${workflowId}`, JSON.stringify(kept))
}

import type { Line } from "./transcript"

/** A DOM element with its attributes and children: the widget is small enough to do without a framework. */
export const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: ReadonlyArray<Node | string>
): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value)
  node.append(...children)
  return node
}

export interface LineActions {
  readonly reply: (text: string) => void
  readonly rate: (line: Line, sentiment: "positive" | "negative", category?: string) => void
}

export interface FeedbackSettings {
  readonly enabled: boolean
  readonly categories: ReadonlyArray<string>
}

const feedbackRow = (line: Line, feedback: FeedbackSettings, actions: LineActions) => {
  const thumb = (sentiment: "positive" | "negative", label: string, glyph: string) => {
    const b = el("button", { type: "button", "aria-label": label, "aria-pressed": String(line.sentiment === sentiment) }, glyph)
    b.addEventListener("click", () => actions.rate(line, sentiment))
    return b
  }
  const row = el("div", { class: "feedback" }, thumb("positive", "Helpful", "↑"), thumb("negative", "Not helpful", "↓"))
  if (line.sentiment !== undefined && feedback.categories.length > 0) {
    const pills = el("div", { class: "pills", role: "group", "aria-label": "What best describes it?" })
    for (const category of feedback.categories) {
      const b = el("button", { type: "button", "aria-pressed": String(line.category === category) }, category)
      b.addEventListener("click", () => actions.rate(line, line.sentiment!, category))
      pills.append(b)
    }
    return el("div", {}, row, pills)
  }
  return row
}

/** One message: its text, the documents it cites, suggested replies and (for an answer) the thumbs. */
export const lineView = (line: Line, last: boolean, feedback: FeedbackSettings, actions: LineActions) => {
  const classes = `msg ${line.role}${line.status === "failed" ? " error" : ""}`
  const text = line.status === "pending" && line.content === "" ? el("span", { class: "typing" }, "Typing…") : line.content
  const node = el("div", { class: classes, ...(line.role === "assistant" ? { "data-role": "assistant" } : {}) }, text)
  if (line.sources.length > 0) {
    node.append(el("ul", { class: "sources", "aria-label": "Sources" }, ...line.sources.map((s) => el("li", {}, s.title ?? s.document_id))))
  }
  const wrap = el("div", {}, node)
  if (line.role === "assistant" && line.status === "done" && line.id !== undefined && feedback.enabled) wrap.append(feedbackRow(line, feedback, actions))
  if (last && line.buttons.length > 0) {
    const buttons = el("div", { class: "buttons" })
    for (const button of line.buttons) {
      const b = el("button", { type: "button" }, button.label)
      b.addEventListener("click", () => actions.reply(button.value))
      buttons.append(b)
    }
    wrap.append(buttons)
  }
  return wrap
}

import { type Line, loadVisitor, saveVisitor } from "./transcript"
import { type Embed, makeWidgetApi, type StreamEvent, WidgetError } from "./widgetApi"
import { WIDGET_CSS } from "./widgetStyles"
import { el, type FeedbackSettings, lineView } from "./widgetView"

/**
 * The embeddable chat widget (`/widget.js`): a customer puts
 * `<script src="https://<platform>/widget.js" data-workflow-id="…" data-key="…" async></script>`
 * on their pages. It draws a launcher and a chat panel in a shadow root, configured by the AI
 * Employee's embed config, and talks to the platform it was loaded from with the widget key alone.
 */
const script = document.currentScript instanceof HTMLScriptElement ? document.currentScript : undefined

const mount = (base: string, workflowId: string, key: string, openAtStart: boolean) => {
  const api = makeWidgetApi(base, key)
  const visitor = loadVisitor(workflowId)
  const host = el("div", { "data-builder-platform-widget": workflowId })
  const root = host.attachShadow({ mode: "open" })
  const title = el("h2", {}, "Chat")
  const close = el("button", { type: "button", "aria-label": "Close the chat" }, "×")
  const log = el("div", { class: "log", role: "log", "aria-live": "polite" })
  const note = el("p", { class: "note", role: "status" })
  const input = el("textarea", { rows: "1", "aria-label": "Your message", placeholder: "Write a message…", maxlength: "32000" })
  const send = el("button", { type: "submit" }, "Send")
  const form = el("form", {}, input, send)
  const panel = el("section", { class: "panel", role: "dialog", "aria-label": "Chat" }, el("header", {}, title, close), log, note, form)
  const launcher = el("button", { class: "launcher", type: "button", "aria-label": "Open the chat", "aria-expanded": "false" }, "Chat")
  panel.hidden = true
  root.append(el("style", {}, WIDGET_CSS), panel, launcher)
  document.body.append(host)

  let embed: Embed | undefined
  let busy = false
  const feedback = (): FeedbackSettings => embed?.feedback_pills ?? { enabled: false, categories: [] }
  const welcome = (): Array<Line> =>
    embed?.welcome_message != null && embed.welcome_message !== ""
      ? [{ role: "assistant", content: embed.welcome_message, status: "done", sources: [], buttons: embed.welcome_buttons }]
      : []

  const render = () => {
    const lines = visitor.lines.length === 0 ? welcome() : visitor.lines
    log.replaceChildren(...lines.map((line, i) => lineView(line, i === lines.length - 1 && !busy, feedback(), { reply: (text) => void ask(text), rate })))
    log.scrollTop = log.scrollHeight
    send.disabled = busy || embed === undefined
  }

  const rate = (line: Line, sentiment: "positive" | "negative", category?: string) => {
    if (line.id === undefined) return
    line.sentiment = sentiment
    if (category !== undefined) line.category = category
    else delete line.category
    render()
    saveVisitor(workflowId, visitor)
    api.feedback(line.id, sentiment, category).then(() => void (note.textContent = "Thank you for the feedback."), (e: unknown) => {
      note.textContent = e instanceof Error ? e.message : "The feedback could not be sent"
    })
  }

  const apply = (line: Line, event: StreamEvent) => {
    switch (event.type) {
      case "token":
        line.content += event.delta
        break
      case "assistant_message":
        line.content = event.content
        line.sources = event.sources as Line["sources"]
        line.buttons = event.response_buttons as Line["buttons"]
        if (event.message_id !== null) line.id = event.message_id
        line.status = event.message_status === "completed" ? "done" : "failed"
        break
      case "run_paused":
        note.textContent = "Waiting for a person to answer…"
        break
      case "run_failed":
      case "run_cancelled":
        if (line.status === "pending") Object.assign(line, { status: "failed", content: "Sorry, no answer could be given. Please try again." })
        break
      default:
        break
    }
    render()
  }

  const ask = async (text: string) => {
    const message = text.trim()
    if (message === "" || busy) return
    busy = true
    note.textContent = ""
    visitor.lines.push({ role: "user", content: message, status: "done", sources: [], buttons: [] })
    const answer: Line = { role: "assistant", content: "", status: "pending", sources: [], buttons: [] }
    visitor.lines.push(answer)
    render()
    try {
      const accepted = await api.send({ workflow_id: workflowId, message, external_user_id: visitor.externalUserId, conversation_id: visitor.conversationId })
      answer.id = accepted.assistant_message_id
      const stop = new AbortController()
      await api.follow(accepted.run_id, (event) => apply(answer, event), stop.signal)
      if (answer.status === "pending") answer.status = answer.content === "" ? "failed" : "done"
    } catch (e) {
      Object.assign(answer, {
        status: "failed",
        content: e instanceof WidgetError && e.status === 429
          ? "Too many messages: please wait a moment."
          : (e instanceof Error ? e.message : "The message could not be sent")
      })
    } finally {
      busy = false
      render()
      saveVisitor(workflowId, visitor)
    }
  }

  const toggle = (open: boolean) => {
    panel.hidden = !open
    launcher.setAttribute("aria-expanded", String(open))
    launcher.setAttribute("aria-label", open ? "Close the chat" : "Open the chat")
    if (open) input.focus()
  }
  launcher.addEventListener("click", () => toggle(panel.hidden))
  close.addEventListener("click", () => toggle(false))
  form.addEventListener("submit", (e) => {
    e.preventDefault()
    const text = input.value
    input.value = ""
    void ask(text)
  })
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault()
      form.requestSubmit()
    }
  })

  api.config(workflowId).then((config) => {
    embed = config
    title.textContent = config.name
    panel.setAttribute("aria-label", `Chat with ${config.name}`)
    if (!config.published) note.textContent = "This assistant is not available yet."
    render()
  }, (e: unknown) => {
    note.textContent = e instanceof Error ? e.message : "The assistant cannot be reached right now"
  })
  render()
  if (openAtStart) toggle(true)
}

if (script !== undefined) {
  const workflowId = script.dataset.workflowId
  const key = script.dataset.key
  if (workflowId === undefined || key === undefined) {
    console.error("Builder Platform chat widget: the script tag needs data-workflow-id and data-key")
  } else {
    const start = () => mount(new URL(script.src).origin, workflowId, key, script.dataset.open === "true")
    if (document.body === null) document.addEventListener("DOMContentLoaded", start)
    else start()
  }
}

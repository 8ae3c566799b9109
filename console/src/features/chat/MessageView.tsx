import type { ChatMessage } from "../../../../schemas/Chat"
import { When } from "../../ui/Bits"
import { MessageFeedback } from "./MessageFeedback"

/** One turn: its text, the documents it cites, and on an answer its feedback. */
export const MessageView = ({ message, feedback, unsavedAnswer }: {
  readonly message: ChatMessage
  readonly feedback: { readonly enabled: boolean; readonly categories: ReadonlyArray<string> }
  /** A dry run's answer, which the platform does not store. */
  readonly unsavedAnswer?: string | undefined
}) => {
  const failed = message.status === "failed" || message.status === "cancelled"
  return (
    <>
      <li className={`chat-message ${message.role}${failed ? " failed" : ""}`} aria-label={message.role === "user" ? "You" : "Assistant"}>
        <div className="bubble">{message.content}</div>
        {message.sources.length > 0 && (
          <details className="sources">
            <summary>{message.sources.length} source{message.sources.length === 1 ? "" : "s"}</summary>
            <ul>
              {message.sources.map((s) => (
                <li key={`${s.document_id}/${s.chunk_id ?? ""}`}>
                  <strong>{s.title ?? s.document_id}</strong>
                  {s.snippet !== undefined && <q>{s.snippet}</q>}
                  {s.score !== undefined && <span className="muted">· score {s.score.toFixed(2)}</span>}
                </li>
              ))}
            </ul>
          </details>
        )}
        <div className="meta muted">
          <When at={message.created_at} />
          {message.role === "user" && message.status === "queued" && " · waiting for the previous answer"}
          {message.is_dry_run && " · dry run"}
          {message.error !== undefined && ` · ${message.error}`}
        </div>
        {message.role === "assistant" && message.status === "completed" && feedback.enabled && (
          <MessageFeedback message={message} categories={feedback.categories} />
        )}
      </li>
      {unsavedAnswer !== undefined && (
        <li className="chat-message assistant" aria-label="Assistant (dry run, not saved)">
          <div className="bubble">{unsavedAnswer}</div>
          <div className="meta muted">Dry run: not saved</div>
        </li>
      )}
    </>
  )
}

import { useMutation, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import type { ChatMessage } from "../../../../schemas/Chat"
import { api } from "../../api/client"
import { ErrorState } from "../../ui/States"

type Sentiment = "positive" | "negative"

/** Thumbs on an answer, a category among the AI Employee's pills, and a comment once rated. */
export const MessageFeedback = ({ message, categories }: { readonly message: ChatMessage; readonly categories: ReadonlyArray<string> }) => {
  const queryClient = useQueryClient()
  const [text, setText] = useState(message.feedback?.feedback_text ?? "")
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["chat", "messages", message.session_id] })
  const rate = useMutation({
    mutationFn: (input: { readonly sentiment: Sentiment; readonly category?: string | undefined }) =>
      api((c) =>
        c.chat.feedback({
          path: { message_id: message.id },
          payload: input.category === undefined ? { sentiment: input.sentiment } : { sentiment: input.sentiment, category: input.category }
        })
      ),
    onSuccess: refresh
  })
  const comment = useMutation({
    mutationFn: (feedback_text: string) => api((c) => c.chat.feedbackText({ path: { message_id: message.id }, payload: { feedback_text } })),
    onSuccess: refresh
  })
  const current = message.feedback
  const thumb = (sentiment: Sentiment, label: string, glyph: string) => (
    <button
      type="button"
      className="thumb"
      aria-label={label}
      aria-pressed={current?.sentiment === sentiment}
      disabled={rate.isPending}
      onClick={() => rate.mutate({ sentiment, category: current?.sentiment === sentiment ? current.category : undefined })}
    >
      {glyph}
    </button>
  )
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (text.trim() !== "") comment.mutate(text.trim())
  }
  return (
    <div className="chat-feedback">
      <div role="group" aria-label="Feedback">
        {thumb("positive", "Helpful", "↑")}
        {thumb("negative", "Not helpful", "↓")}
      </div>
      {current !== undefined && categories.length > 0 && (
        <div className="pills" role="group" aria-label="Category">
          {categories.map((category) => (
            <button
              key={category}
              type="button"
              aria-pressed={current.category === category}
              disabled={rate.isPending}
              onClick={() => rate.mutate({ sentiment: current.sentiment, category })}
            >
              {category}
            </button>
          ))}
        </div>
      )}
      {current !== undefined && (
        <form onSubmit={submit} className="inline-form">
          <label>
            Comment <input value={text} onChange={(e) => setText(e.target.value)} maxLength={4000} />
          </label>
          <button type="submit" disabled={comment.isPending || text.trim() === "" || text.trim() === current.feedback_text}>Save comment</button>
          {comment.isSuccess && <span role="status" className="muted">Saved</span>}
        </form>
      )}
      {(rate.error ?? comment.error) !== null && <ErrorState error={rate.error ?? comment.error} />}
    </div>
  )
}

import { Context, Effect, Layer } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { freePort } from "../../platform/FreePort.js"

export interface ChatCompletionRequest {
  readonly model: string
  readonly messages: ReadonlyArray<{ role: string; content: string | null }>
  readonly stream?: boolean
  readonly response_format?: unknown
  readonly tools?: ReadonlyArray<unknown>
}

export interface ScriptedReply {
  readonly text?: string
  /** Pieces the text is streamed in (default: words). */
  readonly chunks?: ReadonlyArray<string>
  readonly delayMs?: number
  /** Hold the answer until released (or the client goes away). */
  readonly hold?: Promise<void>
  readonly status?: number
  /** Headers of a failure reply (`status`), e.g. Retry-After. */
  readonly headers?: Record<string, string>
  readonly toolCalls?: ReadonlyArray<{ id: string; name: string; arguments: string }>
  readonly usage?: { prompt_tokens: number; completion_tokens: number }
}

/** `authorization` is the request's header as sent: a platform's LLM_API_KEY tells its processes apart. */
export type Script = (request: ChatCompletionRequest, callNumber: number, authorization: string | undefined) => ScriptedReply

/** Maps a text to its embedding vector. */
export type Embedder = (text: string) => ReadonlyArray<number>

/** The default embedder: a hashed bag of words (64 dimensions). */
export const bagOfWords: Embedder = (text) => {
  const v = new Array<number>(64).fill(0)
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 0
    for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) >>> 0
    v[h % 64] += 1
  }
  return v
}

const lastUser = (r: ChatCompletionRequest) => [...r.messages].reverse().find((m) => m.role === "user")?.content ?? ""

/** Echoes the last user message: the default script. */
/** A promise to hold a scripted reply with (`hold`), and the function that lets it go. */
export const heldReply = () => {
  let release: () => void = () => undefined
  const promise = new Promise<void>((resolve) => (release = resolve))
  return { promise, release }
}

export const echo: Script = (r) => ({ text: `Echo: ${lastUser(r)}` })

/**
 * An OpenAI-compatible chat-completions server on loopback, speaking the real protocol
 * (streaming SSE chunks, tool calls, usage), whose answers a test scripts.
 */
export class ScriptedModel extends Context.Tag("ScriptedModel")<ScriptedModel, {
  readonly baseUrl: string
  readonly requests: Array<ChatCompletionRequest>
  /** The Authorization header of each request, in the same order. */
  readonly authorizations: Array<string | undefined>
  readonly setScript: (script: Script) => void
  /** Inputs of every embeddings request, in order. */
  readonly embeddingRequests: Array<{ model: string; input: ReadonlyArray<string> }>
  readonly setEmbedder: (embedder: Embedder) => void
  /** Makes the embeddings endpoint answer this status (undefined: answer normally). */
  readonly failEmbeddings: (status: number | undefined) => void
  /** Requests that are waiting on a held reply. */
  readonly inFlight: () => number
  /** Replies whose stream has begun and not yet ended. */
  readonly streaming: () => number
  /** Connections the client aborted before the answer ended. */
  readonly aborted: () => number
}>() {
  static readonly layer = Layer.scoped(
    ScriptedModel,
    Effect.gen(function*() {
      const port = yield* freePort
      const state = { script: echo, calls: 0, inFlight: 0, streaming: 0, aborted: 0, embedder: bagOfWords, embeddingStatus: undefined as number | undefined }
      const requests: Array<ChatCompletionRequest> = []
      const embeddingRequests: Array<{ model: string; input: ReadonlyArray<string> }> = []
      const authorizations: Array<string | undefined> = []
      const server: Server = createServer((req, res) => void handle(req, res))
      const handle = async (req: IncomingMessage, res: ServerResponse) => {
        const chunks: Array<Buffer> = []
        for await (const c of req) chunks.push(c as Buffer)
        if (req.url === "/v1/embeddings" && req.method === "POST") {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { model: string; input: string | ReadonlyArray<string> }
          const input = typeof body.input === "string" ? [body.input] : body.input
          embeddingRequests.push({ model: body.model, input })
          if (state.embeddingStatus !== undefined) {
            res.writeHead(state.embeddingStatus, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "scripted failure" } }))
            return
          }
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
            object: "list",
            model: body.model,
            data: input.map((text, index) => ({ object: "embedding", index, embedding: state.embedder(text) })),
            usage: { prompt_tokens: input.length, total_tokens: input.length }
          }))
          return
        }
        if (req.url !== "/v1/chat/completions" || req.method !== "POST") {
          res.writeHead(404).end()
          return
        }
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatCompletionRequest
        requests.push(body)
        authorizations.push(req.headers.authorization)
        const reply = state.script(body, ++state.calls, req.headers.authorization)
        let closed = false
        res.on("close", () => {
          if (!res.writableFinished) {
            closed = true
            state.aborted++
          }
        })
        if (reply.hold !== undefined) {
          state.inFlight++
          await reply.hold
          state.inFlight--
        }
        if (closed) return
        if (reply.status !== undefined && reply.status >= 400) {
          res.writeHead(reply.status, { ...reply.headers, "content-type": "application/json" }).end(JSON.stringify({ error: { message: "scripted failure" } }))
          return
        }
        const text = reply.text ?? ""
        const pieces = reply.chunks ?? text.split(/(?<= )/)
        const usage = reply.usage ?? { prompt_tokens: 11, completion_tokens: Math.max(1, pieces.length) }
        const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`)
        res.writeHead(200, { "content-type": "text/event-stream" })
        state.streaming++
        res.on("close", () => state.streaming--)
        const id = `chatcmpl-${state.calls}`
        for (const piece of pieces) {
          if (closed) return
          send({ id, object: "chat.completion.chunk", model: body.model, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })
          if (reply.delayMs !== undefined) await new Promise((r) => setTimeout(r, reply.delayMs))
        }
        for (const [index, call] of (reply.toolCalls ?? []).entries()) {
          send({
            id,
            object: "chat.completion.chunk",
            model: body.model,
            choices: [{
              index: 0,
              delta: { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }] },
              finish_reason: null
            }]
          })
        }
        send({
          id,
          object: "chat.completion.chunk",
          model: body.model,
          choices: [{ index: 0, delta: {}, finish_reason: reply.toolCalls ? "tool_calls" : "stop" }]
        })
        send({
          id,
          object: "chat.completion.chunk",
          model: body.model,
          choices: [],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }
        })
        res.end("data: [DONE]\n\n")
      }
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(port, "127.0.0.1", () => resume(Effect.void))),
        () =>
          Effect.async<void>((resume) => {
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      )
      return {
        baseUrl: `http://127.0.0.1:${port}/v1`,
        requests,
        authorizations,
        setScript: (script: Script) => void (state.script = script),
        embeddingRequests,
        setEmbedder: (embedder: Embedder) => void (state.embedder = embedder),
        failEmbeddings: (status: number | undefined) => void (state.embeddingStatus = status),
        inFlight: () => state.inFlight,
        streaming: () => state.streaming,
        aborted: () => state.aborted
      }
    })
  )
}

export { lastUser }

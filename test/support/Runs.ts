import { Effect } from "effect"
import { http } from "./Http.js"
import { TestPlatform } from "./TestPlatform.js"

export interface SseEvent {
  readonly id: number
  readonly data: { type: string; run_id: string; [k: string]: unknown }
}

export const parseSse = (text: string): Array<SseEvent> =>
  text.split("\n\n").flatMap((block) => {
    const id = /^id: (\d+)$/m.exec(block)?.[1]
    const data = /^data: (.*)$/m.exec(block)?.[1]
    return id !== undefined && data !== undefined ? [{ id: Number(id), data: JSON.parse(data) }] : []
  })

/** Reads a run's stream until the server closes it (or the time runs out). */
export const readStream = (token: string, runId: string, options: { lastEventId?: number | string; timeoutMs?: number; path?: string } = {}) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(async () => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "text/event-stream" }
      if (options.lastEventId !== undefined) headers["last-event-id"] = String(options.lastEventId)
      const res = await fetch(`${platform.baseUrl}${options.path ?? `/api/v1/workflow/runs/${runId}/stream`}`, {
        headers,
        signal: AbortSignal.timeout(options.timeoutMs ?? 20_000)
      })
      // `ended`: the server closed the stream (a timeout leaves it false).
      const body = await res.text().then((text) => ({ text, ended: true }), () => ({ text: "", ended: false }))
      return { status: res.status, contentType: res.headers.get("content-type"), events: parseSse(body.text), ended: body.ended }
    }))

/**
 * Reads a run's stream until an event satisfies `until`, then leaves; `at` is what `probe` said
 * at that moment (the state of the world when the event reached the client).
 */
export const readStreamUntil = <A>(token: string, runId: string, until: (event: SseEvent) => boolean, probe: () => A) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(async () => {
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), 20_000)
      const res = await fetch(`${platform.baseUrl}/api/v1/workflow/runs/${runId}/stream`, {
        headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
        signal: controller.signal
      })
      const decoder = new TextDecoder()
      let text = ""
      let at: A | undefined
      for await (const chunk of res.body ?? []) {
        text += decoder.decode(chunk, { stream: true })
        if (parseSse(text).some(until)) {
          at = probe()
          break
        }
      }
      controller.abort()
      clearTimeout(timer)
      return { events: parseSse(text), at }
    }))

/** Polls a run until its status is one of `statuses`. */
export const waitForStatus = (token: string, runId: string, statuses: ReadonlyArray<string>, timeoutMs = 20_000) =>
  Effect.gen(function*() {
    const until = Date.now() + timeoutMs
    for (;;) {
      const r = yield* http("GET", `/api/v1/workflow/runs/${runId}`, { token })
      if (statuses.includes(r.body?.status)) return r.body
      if (Date.now() > until) return yield* Effect.dieMessage(`run ${runId} stayed ${r.body?.status}: ${r.text}`)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
    }
  })

export const startRun = (token: string, workflowId: string, input: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  http("POST", `/api/v1/workflow/workflows/${workflowId}/run`, { token, body: { input_params: input }, headers })

/** Reads a run's stream until an event of `type` arrives, then hangs up. */
export const readUntil = (token: string, runId: string, type: string, timeoutMs = 15_000) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(async () => {
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), timeoutMs)
      const res = await fetch(`${platform.baseUrl}/api/v1/workflow/runs/${runId}/stream`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal
      })
      const reader = res.body!.getReader()
      const decoder = new TextDecoder()
      let text = ""
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          text += decoder.decode(value, { stream: true })
          if (parseSse(text).some((e) => e.data.type === type)) break
        }
      } catch {
        // timed out: return what arrived
      } finally {
        clearTimeout(timer)
        controller.abort()
      }
      return parseSse(text)
    }))

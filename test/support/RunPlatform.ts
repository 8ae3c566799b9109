import { assert } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ScriptedModel } from "./ScriptedModel.js"
import { TestPlatformLive } from "./TestPlatform.js"
import { createWorkflow, publish, saveDag } from "./Workflows.js"

/** The platform with its model provider pointed at a scripted model on loopback. */
export const RunPlatformLive = (env: Record<string, string> = {}) =>
  Layer.unwrapEffect(
    Effect.map(ScriptedModel, (model) => TestPlatformLive({ env: { LLM_BASE_URL: model.baseUrl, LLM_MODELS: "test-model,big-model", ...env } }))
  ).pipe(Layer.provideMerge(ScriptedModel.layer))

/** A published AI Employee with this DAG. */
export const publishedWorkflow = (token: string, dag: unknown, body: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const w = yield* createWorkflow(token, body)
    yield* saveDag(token, w.id, dag)
    const p = yield* publish(token, w.id)
    assert.strictEqual(p.status, 200, p.text)
    return w.id as string
  })

export const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/** Waits until `check` holds (polling), failing the test after `timeoutMs`. */
export const eventually = <A, R>(check: Effect.Effect<A | undefined, never, R>, what: string, timeoutMs = 15_000) =>
  Effect.gen(function*() {
    const until = Date.now() + timeoutMs
    for (;;) {
      const value = yield* check
      if (value !== undefined) return value
      if (Date.now() > until) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* sleep(50)
    }
  })

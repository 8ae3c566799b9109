import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { Redis } from "ioredis"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { readStream, readStreamUntil, startRun, waitForStatus } from "../support/Runs.js"
import { heldReply, lastUser, ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"
import { redisAvailable } from "../support/TestServices.js"
import { createWorkflow, publish, respondNode, saveDag } from "../support/Workflows.js"

const steps = (token: string, runId: string) =>
  http("GET", `/api/v1/workflow/runs/${runId}/steps`, { token }).pipe(
    Effect.map((r) => Object.fromEntries(r.body.items.map((s: { node_id: string; status: string }) => [s.node_id, s.status])))
  )

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "90 seconds" })("run flow", (it) => {
  it.effect("conditions pick a branch; the other branch and what only it feeds are skipped", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => ({ text: r.messages[0]?.content === "Classify" ? "billing" : `answer to ${lastUser(r)}` }))
      //  classify ──[text=billing]──▶ billing
      //     └──────[text=other]────▶ other ──▶ after_other
      const id = yield* publishedWorkflow(token, {
        nodes: [respondNode("classify", "Classify"), respondNode("billing", "Billing"), respondNode("other", "Other"), respondNode("after_other", "After")],
        edges: [
          { from: "classify", to: "billing", condition: { ref: "nodes.classify.output.text", op: "eq", value: "billing" } },
          { from: "classify", to: "other", condition: { ref: "nodes.classify.output.text", op: "eq", value: "other" } },
          { from: "other", to: "after_other" }
        ]
      })
      const run = yield* startRun(token, id, { q: "refund" })
      const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed")
      assert.deepStrictEqual(yield* steps(token, run.body.id), {
        classify: "completed",
        billing: "completed",
        other: "skipped",
        after_other: "skipped"
      })
      assert.deepStrictEqual(done.output, { text: "answer to {\"q\":\"refund\"}" })
    }))

  it.effect("independent branches run concurrently", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const gate = heldReply()
      model.setScript(() => ({ text: "ok", hold: gate.promise }))
      //  left     right   (two roots)
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("left"), respondNode("right")] })
      const run = yield* startRun(token, id, {})
      yield* eventually(Effect.sync(() => (model.inFlight() === 2 ? true : undefined)), "both model calls in flight")
      gate.release()
      assert.strictEqual((yield* waitForStatus(token, run.body.id, ["completed", "failed"])).status, "completed")
    }))

  it.effect("a branch that fails stops its sibling in flight: the sibling's model call is aborted and its step cancelled", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const gate = heldReply()
      const slowInFlight = heldReply()
      model.setScript((r) => {
        if (r.messages[0]?.content === "Slow") {
          slowInFlight.release()
          return { text: "too late", hold: gate.promise }
        }
        return { status: 400, hold: slowInFlight.promise }
      })
      const abortedBefore = model.aborted()
      //  slow     boom   (two roots; boom fails while slow waits on the model)
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("slow", "Slow"), respondNode("boom", "Boom")] })
      const run = yield* startRun(token, id, {})
      const failed = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
      assert.strictEqual(failed.status, "failed")
      assert.include(failed.error, "Node 'boom' failed")
      assert.deepStrictEqual(yield* steps(token, run.body.id), { slow: "cancelled", boom: "failed" })
      yield* eventually(Effect.sync(() => (model.aborted() > abortedBefore ? true : undefined)), "the slow node's model call aborted")
      gate.release()
      const s = yield* readStream(token, run.body.id)
      assert.strictEqual(s.events.at(-1)?.data.type, "run_failed")
      assert.isFalse(s.events.some((e) => e.data.type === "step_completed"))
    }))

  it.effect("a failing model call fails the step and the run; a transfer to a missing group is not publishable", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ status: 400 }))
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
      const run = yield* startRun(token, id, {})
      const failed = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
      assert.strictEqual(failed.status, "failed")
      assert.include(failed.error, "Model answered 400")
      const s = yield* readStream(token, run.body.id)
      assert.deepStrictEqual(s.events.map((e) => e.data.type), ["step_started", "step_failed", "run_failed"])

      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, {
        nodes: [respondNode("a"), {
          id: "handoff",
          type: "live_agent_transfer",
          live_agent_transfer_config: { group_id: "00000000-0000-4000-8000-000000000000", summary: "s" }
        }]
      })
      const refused = yield* publish(token, w.id)
      assert.strictEqual(refused.status, 422)
      assert.deepStrictEqual(
        refused.body.details.map((d: { code: string; node_id?: string }) => [d.code, d.node_id]).sort(),
        [["TRANSFER_GROUP_NOT_FOUND", "handoff"]]
      )
    }))

  it.effect("5xx answers are retried with backoff", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const before = model.requests.length
      let calls = 0
      model.setScript(() => (++calls === 3 ? { text: "third time lucky" } : { status: 503 }))
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
      const run = yield* startRun(token, id, {})
      const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed", JSON.stringify(done) + ` calls=${calls} requests=${model.requests.length - before}`)
      assert.strictEqual(model.requests.length - before, 3)
      assert.deepStrictEqual(done.output, { text: "third time lucky" })
    }))

  it.effect("API keys start runs with trigger_type api; Idempotency-Key replays the first response", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
      const key = yield* http("POST", "/api/v1/auth/api-keys", { token, body: { name: "runner" } })
      const viaKey = yield* http("POST", `/api/v1/workflow/workflows/${id}/run`, { apiKey: key.body.key, body: { input_params: {} } })
      assert.strictEqual(viaKey.status, 202)
      assert.strictEqual(viaKey.body.trigger_type, "api")
      const headers = { "idempotency-key": "retry-123" }
      const first = yield* startRun(token, id, { n: 1 }, headers)
      const again = yield* startRun(token, id, { n: 1 }, headers)
      assert.strictEqual(again.status, 202)
      assert.strictEqual(again.body.id, first.body.id)
      const other = yield* startRun(token, id, { n: 2 }, headers)
      assert.strictEqual(other.status, 422)
      const list = yield* http("GET", `/api/v1/workflow/workflows/${id}/runs`, { token })
      assert.strictEqual(list.body.total, 2)
      const apiOnly = yield* http("GET", `/api/v1/workflow/workflows/${id}/runs?trigger_type=api`, { token })
      assert.deepStrictEqual(apiOnly.body.items.map((r: { id: string }) => r.id), [viaKey.body.id])
      yield* waitForStatus(token, first.body.id, ["completed"])
      const completed = yield* http("GET", `/api/v1/workflow/workflows/${id}/runs?status=completed&since=2000-01-01T00:00:00Z`, { token })
      assert.isAtLeast(completed.body.total, 1)
      const future = yield* http("GET", `/api/v1/workflow/workflows/${id}/runs?since=2999-01-01T00:00:00Z`, { token })
      assert.strictEqual(future.body.total, 0)
    }))

  it.effect("a dry run executes but is not listed as a real run", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "dry" }))
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
      const dry = yield* http("POST", `/api/v1/workflow/workflows/${id}/dry-run`, { token, body: { input_params: {} } })
      assert.strictEqual(dry.status, 202)
      assert.isTrue(dry.body.is_dry_run)
      assert.strictEqual((yield* waitForStatus(token, dry.body.id, ["completed"])).status, "completed")
      const list = yield* http("GET", `/api/v1/workflow/workflows/${id}/runs`, { token })
      assert.strictEqual(list.body.total, 0)
      const recent = yield* http("GET", "/api/v1/workflow/runs?limit=100", { token })
      assert.isFalse(recent.body.items.some((r: { id: string }) => r.id === dry.body.id))
    }))

  it.effect("a dry run tests the latest saved draft before anything is published, or the version it names, and is followed on its stream", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => ({ text: `draft says ${String(r.messages[0]?.content ?? "")}` }))
      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, { nodes: [respondNode("a", "first draft")], edges: [] })
      const first = (yield* http("GET", `/api/v1/workflow/workflows/${w.id}`, { token })).body.latest_version as number
      yield* saveDag(token, w.id, { nodes: [respondNode("a", "second draft")], edges: [] })
      assert.strictEqual((yield* http("POST", `/api/v1/workflow/workflows/${w.id}/run`, { token, body: { input_params: {} } })).body.code, "NOT_PUBLISHED")

      const dry = yield* http("POST", `/api/v1/workflow/workflows/${w.id}/dry-run`, { token, body: { input_params: {} } })
      assert.strictEqual(dry.status, 202, dry.text)
      assert.deepInclude(dry.body, { is_dry_run: true, version: first + 1 })
      const { events } = yield* readStream(token, dry.body.id)
      assert.strictEqual(events.at(-1)?.data.type, "run_completed")
      const done = yield* waitForStatus(token, dry.body.id, ["completed"])
      assert.include(done.output.text, "second draft")

      const older = yield* http("POST", `/api/v1/workflow/workflows/${w.id}/dry-run`, { token, body: { input_params: {}, version: first } })
      assert.strictEqual(older.body.version, first)
      assert.include((yield* waitForStatus(token, older.body.id, ["completed"])).output.text, "first draft")
      const missing = yield* http("POST", `/api/v1/workflow/workflows/${w.id}/dry-run`, { token, body: { input_params: {}, version: 99 } })
      assert.strictEqual(missing.status, 404, missing.text)
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/workflows/${w.id}/runs`, { token })).body.total, 0, "dry runs are not real runs")
    }))

  it.effect("the run history pages every run once, newest or oldest first, with filters; a forged cursor, or one of the other order, is 400", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
      const started: Array<string> = []
      for (let i = 0; i < 7; i++) started.push((yield* startRun(token, id, {})).body.id as string)
      for (const run of started) yield* waitForStatus(token, run, ["completed"])
      const platform = yield* TestPlatform
      // Two runs share a millisecond and differ below it: the cursor keeps PostgreSQL's microseconds.
      yield* Effect.promise(async () => {
        const { default: pg } = await import("pg")
        const client = new pg.Client({ connectionString: platform.databaseUrl })
        await client.connect()
        await client.query("UPDATE runs SET created_at = '2026-01-01 00:00:00.000100+00' WHERE id = $1", [started[0]])
        await client.query("UPDATE runs SET created_at = '2026-01-01 00:00:00.000200+00' WHERE id = $1", [started[1]])
        await client.end()
      })
      const pages = (order: string) =>
        Effect.gen(function*() {
          const seen: Array<string> = []
          let cursor: string | null = null
          do {
            const page: { body: { items: Array<{ id: string }>; next_cursor: string | null } } = yield* http(
              "GET",
              `/api/v1/workflow/runs/history?workflow_id=${id}&page_size=2${order}${cursor === null ? "" : `&cursor=${cursor}`}`,
              { token }
            )
            seen.push(...page.body.items.map((r) => r.id))
            cursor = page.body.next_cursor
          } while (cursor !== null)
          return seen
        })
      const seen = yield* pages("")
      assert.sameMembers(seen, started)
      assert.strictEqual(seen.length, 7, "each once")
      assert.deepStrictEqual(seen.slice(-2), [started[1], started[0]], "newest first, to the microsecond")
      assert.deepStrictEqual(yield* pages("&order=oldest"), [...seen].reverse(), "oldest first: the same runs the other way")
      const first = yield* http("GET", `/api/v1/workflow/runs/history?workflow_id=${id}&page_size=2`, { token })
      const mixed = yield* http("GET", `/api/v1/workflow/runs/history?workflow_id=${id}&order=oldest&cursor=${first.body.next_cursor}`, { token })
      assert.strictEqual(mixed.status, 400, "a cursor keeps to its order")
      assert.strictEqual(mixed.body.code, "INVALID_PAGE_TOKEN")
      assert.strictEqual((yield* http("GET", "/api/v1/workflow/runs/history?order=sideways", { token })).status, 400)
      const completed = yield* http(
        "GET",
        `/api/v1/workflow/runs/history?status=completed&trigger_type=ui&workflow_id=${id}&since=2026-06-01T00:00:00Z&page_size=100`,
        { token }
      )
      assert.strictEqual(completed.body.items.length, 5)
      const forged = yield* http("GET", `/api/v1/workflow/runs/history?cursor=${Buffer.from("x|y").toString("base64url")}`, { token })
      assert.strictEqual(forged.status, 400)
      assert.strictEqual(forged.body.code, "INVALID_PAGE_TOKEN")
    }))

  it.effect("call_aie runs the other AI Employee's active version as a child run and takes its output", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => ({ text: `child says ${lastUser(r)}` }))
      const child = yield* publishedWorkflow(token, {
        input_schema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
        nodes: [respondNode("inner")]
      })
      const parent = yield* publishedWorkflow(token, {
        nodes: [{ id: "delegate", type: "call_aie", call_aie_config: { workflow_id: child, input_params: { topic: "{{workflow_input.subject}}" } } }]
      })
      const run = yield* startRun(token, parent, { subject: "taxes" })
      const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed", JSON.stringify(done))
      assert.deepStrictEqual(done.output, { text: "child says {\"topic\":\"taxes\"}" })
      const childRuns = yield* http("GET", `/api/v1/workflow/workflows/${child}/runs`, { token })
      const childRun = childRuns.body.items[0]
      assert.strictEqual(childRun.parent_run_id, run.body.id)
      assert.strictEqual(childRun.status, "completed")
    }))

  it.effect("recent runs across AI Employees; other tenants' runs are 404; reading needs access", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "x" }))
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
      const run = yield* startRun(token, id, {})
      const recent = yield* http("GET", "/api/v1/workflow/runs?limit=5&offset=0", { token })
      assert.strictEqual(recent.status, 200)
      assert.strictEqual(recent.body.items[0].id, run.body.id)
      assert.strictEqual(recent.body.items[0].run_count, 1)
      assert.strictEqual(recent.body.limit, 5)
      const user = yield* createMember(token, "user")
      const uToken = yield* loginToken(user.email, user.password)
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/runs/${run.body.id}`, { token: uToken })).status, 200)
      assert.strictEqual((yield* http("POST", `/api/v1/workflow/runs/${run.body.id}/cancel`, { token: uToken })).status, 403)
      assert.strictEqual((yield* http("GET", "/api/v1/workflow/runs/00000000-0000-4000-8000-000000000000", { token })).status, 404)
      assert.deepStrictEqual((yield* http("GET", `/api/v1/workflow/runs/${run.body.id}/external-tool-snapshots`, { token })).body, { items: [] })
    }))
})

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("run streams", (it) => {
  it.effect("a stream opened mid-run gets the live events, then closes at the end; the Redis subscription is dropped on disconnect", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const gate = heldReply()
      model.setScript(() => ({ text: "live tokens here", hold: gate.promise }))
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
      const run = yield* startRun(token, id, {})
      yield* eventually(Effect.sync(() => (model.inFlight() === 1 ? true : undefined)), "the model call")
      const streaming = yield* readStream(token, run.body.id).pipe(Effect.fork)
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 300)))
      gate.release()
      const s = yield* Fiber.join(streaming)
      assert.deepStrictEqual(s.events.map((e) => e.data.type).filter((t) => t !== "token"), [
        "step_started",
        "agent_completed",
        "step_completed",
        "run_completed"
      ])
      assert.strictEqual(s.events.filter((e) => e.data.type === "token").map((e) => e.data.delta).join(""), "live tokens here")
    }))

  it.effect("a long reply's text reaches the stream while the model is still sending it", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const words = Array.from({ length: 16 }, (_, i) => `w${i} `)
      model.setScript(() => ({ chunks: words, delayMs: 100 }))
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
      const run = yield* startRun(token, id, {})
      const early = yield* readStreamUntil(token, run.body.id, (e) => e.data.type === "token", () => model.streaming())
      assert.strictEqual(early.at, 1, "the first text arrived while the reply was still streaming")
      assert.isFalse(early.events.some((e) => e.data.type === "step_completed"))
      yield* waitForStatus(token, run.body.id, ["completed"])
      const all = yield* readStream(token, run.body.id)
      assert.strictEqual(all.events.filter((e) => e.data.type === "token").map((e) => e.data.delta).join(""), words.join(""))
    }))

  // Counts subscribers in Redis itself: runs where a Redis answers (CI has one).
  it.effect.runIf(redisAvailable)("a client that goes away is unsubscribed from the Redis bus", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const platform = yield* TestPlatform
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "x", hold: new Promise<void>(() => undefined) }))
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
      const run = yield* startRun(token, id, {})
      const channel = `${platform.env.REDIS_KEY_PREFIX}bus:run:${run.body.id}`
      const redis = new Redis(platform.env.REDIS_URL)
      const subscribers = () => Effect.promise(() => redis.pubsub("NUMSUB", channel).then((r) => Number(r[1])))
      const controller = new AbortController()
      const response = yield* Effect.promise(() =>
        fetch(`${platform.baseUrl}/api/v1/workflow/runs/${run.body.id}/stream`, {
          headers: { authorization: `Bearer ${token}` },
          signal: controller.signal
        })
      )
      assert.strictEqual(response.status, 200)
      yield* eventually(Effect.map(subscribers(), (n) => (n === 1 ? true : undefined)), "the subscription")
      controller.abort()
      yield* eventually(Effect.map(subscribers(), (n) => (n === 0 ? true : undefined)), "the subscription to be dropped")
      yield* Effect.promise(() => redis.quit())
      yield* http("POST", `/api/v1/workflow/runs/${run.body.id}/cancel`, { token })
    }))

  it.effect("recent runs fold a chat session's runs into its latest", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "hi" }))
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
      const session = "5e55e55e-0000-4000-8000-000000000001"
      const other = "5e55e55e-0000-4000-8000-000000000002"
      const started: Array<string> = []
      // Two sessions interleaved with runs of no session.
      for (const s of [session, other, undefined, session, other, undefined, session]) {
        const r = yield* http("POST", `/api/v1/workflow/workflows/${id}/run`, {
          token,
          body: { input_params: {}, ...(s !== undefined ? { session_id: s } : {}) }
        })
        started.push(r.body.id)
      }
      const recent = yield* http("GET", "/api/v1/workflow/runs?limit=100", { token })
      const entries = recent.body.items.filter((r: { session_id?: string }) => r.session_id === session)
      assert.strictEqual(entries.length, 1)
      assert.strictEqual(entries[0].run_count, 3)
      assert.strictEqual(entries[0].id, started[6], "the session's latest run stands for it")
      const ids = recent.body.items.map((r: { id: string }) => r.id)
      assert.deepStrictEqual(ids.slice(0, 5), [started[6], started[5], started[4], started[2], ...ids.slice(4, 5)])
      assert.strictEqual(recent.body.items[2].run_count, 2)
      // One at a time, the pages walk the same list.
      const paged: Array<string> = []
      for (let offset = 0; offset < 6; offset++) {
        paged.push((yield* http("GET", `/api/v1/workflow/runs?limit=1&offset=${offset}`, { token })).body.items[0].id)
      }
      assert.deepStrictEqual(paged, ids.slice(0, 6))
      if (ids.length < 100) assert.strictEqual(recent.body.total, ids.length, "the total counts each session once")
    }))
})

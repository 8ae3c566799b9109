import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { apiKey, chatDag, chatWorkflow, isTitleRequest, newSession } from "../support/Chat.js"
import { adminToken } from "../support/Fixtures.js"
import { http, type HttpResult } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"
import { respondNode, simpleDag } from "../support/Workflows.js"

const PARALLEL = 50

/** 50 copies of one request at once: one status, one answer, every time. */
const duplicates = (send: () => Effect.Effect<HttpResult, never, TestPlatform>) =>
  Effect.gen(function*() {
    const answers = yield* Effect.all(Array.from({ length: PARALLEL }, send), { concurrency: PARALLEL })
    assert.deepStrictEqual([...new Set(answers.map((a) => a.status))].length, 1, answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join("\n"))
    const texts = [...new Set(answers.map((a) => a.text))]
    assert.strictEqual(texts.length, 1, `every duplicate gets the identical answer: ${texts.join(" | ")}`)
    return answers[0]
  })

const count = (path: string, token: string) => Effect.map(http("GET", path, { token }), (r) => (r.body.items as Array<unknown>).length)

/**
 * Stripe-style idempotency under races (00-decisions section 7): 50 parallel duplicates of each
 * POST that starts work give one unit of work and identical answers; the key with another body is
 * 422; two conflicting answers to one human request give one 200 and one 409.
 */
layer(RunPlatformLive(), { excludeTestServices: true, timeout: "120 seconds" })("idempotency under races", (it) => {
  it.effect("run, dry-run, chat message, external chat, webhook delivery and eval run: 50 parallel duplicates, one unit of work, identical replays", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((
        r
      ) => (isTitleRequest(r) ? { text: "T" } : (r.messages[0]?.content ?? "").includes("Judge") ? { text: JSON.stringify({ accuracy: 4 }) } : { text: "ok" }))
      const workflow = yield* publishedWorkflow(token, simpleDag())
      const key = (name: string) => ({ "idempotency-key": `${name}-${Math.random().toString(36).slice(2)}` })

      const runKey = key("run")
      const run = yield* duplicates(() => startRun(token, workflow, { n: 1 }, runKey))
      assert.strictEqual(run.status, 202, run.text)
      const dryKey = key("dry")
      const dry = yield* duplicates(() =>
        http("POST", `/api/v1/workflow/workflows/${workflow}/dry-run`, { token, body: { input_params: { n: 2 } }, headers: dryKey })
      )
      assert.strictEqual(dry.status, 202, dry.text)
      assert.strictEqual(
        yield* count(`/api/v1/workflow/workflows/${workflow}/runs?page_size=100`, token),
        1,
        "one run (dry runs are not listed; the dry run's answers are one run's)"
      )
      const reused = yield* startRun(token, workflow, { n: 99 }, runKey)
      assert.strictEqual(reused.status, 422)
      assert.strictEqual(reused.body.code, "IDEMPOTENCY_KEY_REUSED")

      const chat = yield* chatWorkflow(token, chatDag())
      const session = yield* newSession(token, chat)
      const messageKey = key("message")
      const sent = yield* duplicates(() =>
        http("POST", `/api/v1/chat/sessions/${session.id}/messages`, { token, body: { content: "hello once" }, headers: messageKey })
      )
      assert.strictEqual(sent.status, 202, sent.text)
      yield* eventually(
        Effect.map(http("GET", `/api/v1/chat/sessions/${session.id}/messages`, { token }), (r) => (r.body.items.length >= 2 ? true : undefined)),
        "the answer"
      )
      const messages = (yield* http("GET", `/api/v1/chat/sessions/${session.id}/messages`, { token })).body.items as Array<{ role: string }>
      assert.strictEqual(messages.filter((m) => m.role === "user").length, 1, "one user message")

      const api = yield* apiKey(token)
      const externalKey = key("external")
      const external = yield* duplicates(() =>
        http("POST", "/api/v1/chat/external/trigger", {
          apiKey: api,
          body: { bearer_token: token, workflow_id: chat, channel_type: "slack", message: "from slack", conversation_id: "C9" },
          headers: externalKey
        })
      )
      assert.strictEqual(external.status, 202, external.text)

      const hook = yield* http("POST", `/api/v1/workflow/workflows/${workflow}/webhooks`, { token })
      const body = JSON.stringify({ order: 7 })
      const signature = `sha256=${createHmac("sha256", hook.body.secret as string).update(body).digest("hex")}`
      const { baseUrl } = yield* TestPlatform
      const delivery = yield* duplicates(() =>
        Effect.promise(async () => {
          const r = await fetch(new URL(hook.body.url as string, baseUrl), {
            method: "POST",
            body,
            headers: { "content-type": "application/json", "x-signature-256": signature, "x-webhook-id": "evt_race" }
          })
          const text = await r.text()
          return { status: r.status, body: JSON.parse(text || "{}"), headers: r.headers, text }
        })
      )
      assert.isBelow(delivery.status, 300, delivery.text)
      assert.strictEqual(yield* count(`/api/v1/workflow/workflows/${workflow}/runs?page_size=100`, token), 2, "the delivery started one run")

      const evalFlow = yield* publishedWorkflow(token, { nodes: [respondNode("answer", "Answer: {{workflow_input.question}}")], edges: [] })
      const form = new FormData()
      form.append("name", "golden")
      form.append("workflow_id", evalFlow)
      form.append("file", new Blob(["question,expected\nq1,a1\nq2,a2"], { type: "text/csv" }), "golden.csv")
      const dataset = yield* Effect.promise(() =>
        fetch(`${baseUrl}/api/v1/eval/datasets`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form }).then((r) =>
          r.json() as Promise<{ id: string }>
        )
      )
      yield* http("POST", `/api/v1/eval/datasets/${dataset.id}/mapping`, {
        token,
        body: { input_map: { question: "question" }, expected_output_map: { answer: "expected" } }
      })
      const rubric = yield* http("POST", "/api/v1/eval/rubrics", {
        token,
        body: {
          workflow_id: evalFlow,
          name: "Judge",
          rubric_schema: { type: "object", properties: { accuracy: { type: "integer", minimum: 1, maximum: 5 } }, required: ["accuracy"] },
          rubric_instructions: "Judge accuracy."
        }
      })
      const config = yield* http("POST", "/api/v1/eval/configs", {
        token,
        body: { workflow_id: evalFlow, name: "Whole", target_type: "workflow", rubric_id: rubric.body.id, judge_model: "test-model" }
      })
      assert.strictEqual(config.status, 201, config.text)
      const evalKey = key("eval")
      const evalRun = yield* duplicates(() =>
        http("POST", "/api/v1/eval/runs", { token, body: { config_id: config.body.id, dataset_id: dataset.id }, headers: evalKey })
      )
      assert.strictEqual(evalRun.status, 202, evalRun.text)
      assert.strictEqual(yield* count(`/api/v1/eval/runs?config_id=${config.body.id}`, token), 1, "one eval run")
      const otherBody = yield* http("POST", "/api/v1/eval/runs", {
        token,
        body: { config_id: config.body.id, dataset_id: dataset.id, is_preview: true },
        headers: evalKey
      })
      assert.strictEqual(otherBody.body.code, "IDEMPOTENCY_KEY_REUSED")
    }))

  it.effect("two conflicting answers to one approval, sent at once: one 200, one 409; the run goes on once", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "done" }))
      const workflow = yield* publishedWorkflow(token, {
        nodes: [{ ...respondNode("ask"), hitl: { type: "approval", prompt: "Go?", assignee: { role: "builder" } } }, respondNode("after")],
        edges: [{ from: "ask", to: "after" }]
      })
      for (let round = 0; round < 5; round++) {
        const run = yield* startRun(token, workflow, {})
        const request = yield* eventually(
          Effect.map(http("GET", "/api/v1/workflow/hitl/pending?page_size=100", { token }), (r) =>
            r.body.items.find((i: { run_id: string }) => i.run_id === run.body.id)),
          "the approval"
        )
        const answers = yield* Effect.all(
          [true, false].map((approved) =>
            http("POST", `/api/v1/workflow/hitl/${request.request_id}/respond`, { token, body: { response: { approved } } })
          ),
          { concurrency: 2 }
        )
        assert.sameMembers(
          answers.map((a) => a.status),
          [200, 409],
          answers.map((a) => a.text).join("\n")
        )
        const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
        assert.strictEqual(done.status, "completed")
      }
    }))
})

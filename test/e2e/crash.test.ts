import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { request } from "../support/Http.js"
import { waitTerminal } from "../support/ProcessPlatform.js"
import { sleep } from "../support/RunPlatform.js"
import { parseSse } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { attr, logsOf, spansOf, type TraceBody, traceIdOf } from "../support/Traces.js"
import { respondNode } from "../support/Workflows.js"

import { Server, ServerLive, signedIn } from "../support/CrashServer.js"

layer(ServerLive, { excludeTestServices: true, timeout: "180 seconds" })("crash and restart", (it) => {
  it.effect(
    "SIGKILL mid model call and while paused: every run finishes, completed nodes are not re-run, no event is lost or duplicated",
    () =>
      Effect.gen(function*() {
        const server = yield* Server
        const model = yield* ScriptedModel
        const calls: Record<string, number> = {}
        let holdB = true
        model.setScript((r) => {
          const prompt = r.messages[0]?.content ?? ""
          calls[prompt] = (calls[prompt] ?? 0) + 1
          if (prompt === "B" && holdB) return { text: "never", hold: new Promise<void>(() => undefined) }
          return { text: `${prompt.toLowerCase()} done`, chunks: [`${prompt.toLowerCase()} `, "done"] }
        })
        yield* server.start()
        const api = (method: string, p: string, body?: unknown, token?: string) =>
          request(server.baseUrl, method, p, { ...(body !== undefined ? { body } : {}), ...(token !== undefined ? { token } : {}) })
        const login = yield* api("POST", "/api/v1/auth/login", { email: "crash@admin.test", password: "crash-admin-password" })
        const token = login.body.access_token as string
        const publishDag = (dag: unknown) =>
          Effect.gen(function*() {
            const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Crashy" }, token)
            yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { dag_definition: dag }, token)
            const p = yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)
            assert.strictEqual(p.status, 200, p.text)
            return w.body.id as string
          })
        //  A ──▶ B    (B's model call is in flight at the kill)
        const chain = yield* publishDag({ nodes: [respondNode("a", "A"), respondNode("b", "B")], edges: [{ from: "a", to: "b" }] })
        //  H (approval) ──▶ C    (paused at the kill)
        const approval = yield* publishDag({
          nodes: [{ ...respondNode("h", "H"), hitl: { type: "approval", prompt: "ok?", assignee: { role: "builder" } } }, respondNode("c", "C")],
          edges: [{ from: "h", to: "c" }]
        })
        const run1 = (yield* api("POST", `/api/v1/workflow/workflows/${chain}/run`, { input_params: {} }, token)).body.id as string
        const run2 = (yield* api("POST", `/api/v1/workflow/workflows/${approval}/run`, { input_params: {} }, token)).body.id as string
        for (
          let i = 0;
          i < 200 && (model.inFlight() === 0 || (yield* api("GET", `/api/v1/workflow/runs/${run2}`, undefined, token)).body.status !== "paused");
          i++
        ) {
          yield* sleep(50)
        }
        assert.strictEqual(model.inFlight(), 1, "B's model call is in flight")
        assert.strictEqual(calls.A, 1)

        yield* server.kill()
        holdB = false
        yield* server.start()

        const done1 = yield* waitTerminal(api, token, run1)
        assert.strictEqual(done1.status, "completed", JSON.stringify(done1))
        assert.deepStrictEqual(done1.output, { text: "b done" })
        assert.strictEqual(calls.A, 1, "the completed node A is not executed again")
        assert.strictEqual(calls.B, 2, "the interrupted node B runs again")
        // The recovery sweep handed over the one run that was running (the paused one waits for its answer).
        const metrics = yield* api("GET", "/metrics")
        assert.match(metrics.text, /bp_runs_recovered_total\{[^}]*reason="start"[^}]*\} 1\b/)

        const pending = yield* api("GET", "/api/v1/workflow/hitl/pending", undefined, token)
        const requestId = pending.body.items.find((i: { run_id: string }) => i.run_id === run2).request_id
        const answered = yield* api("POST", `/api/v1/workflow/hitl/${requestId}/respond`, { response: { approved: true } }, token)
        assert.strictEqual(answered.status, 200)
        const done2 = yield* waitTerminal(api, token, run2)
        assert.strictEqual(done2.status, "completed")

        for (const runId of [run1, run2]) {
          const text = yield* Effect.promise(() =>
            fetch(`${server.baseUrl}/api/v1/workflow/runs/${runId}/stream`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text())
          )
          const events = parseSse(text)
          const ids = events.map((e) => e.id)
          assert.deepStrictEqual(ids, [...ids].sort((a, b) => a - b), "ids increase")
          assert.strictEqual(new Set(ids).size, ids.length, "no id twice")
          const keys = events.filter((e) => e.data.type !== "token").map((e) => `${e.data.type}:${e.data.node_id ?? ""}`)
          assert.strictEqual(new Set(keys).size, keys.length, `no event twice: ${keys.join(", ")}`)
          assert.strictEqual(events.at(-1)?.data.type, "run_completed")
        }
        const run1Types = parseSse(
          yield* Effect.promise(() =>
            fetch(`${server.baseUrl}/api/v1/workflow/runs/${run1}/stream`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text())
          )
        ).map((e) => `${e.data.type}:${e.data.node_id ?? ""}`).filter((k) => !k.startsWith("token"))
        assert.deepStrictEqual(run1Types, [
          "step_started:a",
          "agent_completed:a",
          "step_completed:a",
          "step_started:b",
          "agent_completed:b",
          "step_completed:b",
          "run_completed:"
        ])

        // One trace across the crash: node a's spans from the first process, node b's from the second.
        const trace = (yield* api("GET", `/api/v1/workflow/runs/${run1}/trace`, undefined, token)).body as TraceBody
        const spans = spansOf(trace)
        assert.isTrue(spans.every((s) => s.traceId === traceIdOf(run1)))
        const root = spans.find((s) => s.parentSpanId === undefined)!
        const steps = spans.filter((s) => s.name.startsWith("node "))
        assert.deepStrictEqual(steps.map((s) => s.name).sort(), ["node a", "node b"])
        assert.isTrue(steps.every((s) => s.parentSpanId === root.spanId))
        assert.strictEqual(spans.filter((s) => s.name === "llm.call").length, 2)
        assert.deepStrictEqual(logsOf(trace).map((l) => `${attr(l, "event.name")}:${attr(l, "node.id") ?? ""}`), run1Types)
      }),
    170_000
  )

  it.effect("SIGKILL while a chat turn is answered and another is queued: both are answered after the restart, in order", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const model = yield* ScriptedModel
      let hold = true
      let firstCalls = 0
      model.setScript((r) => {
        const last = [...r.messages].reverse().find((m) => m.role === "user")?.content ?? ""
        if ((r.messages[0]?.content ?? "").startsWith("Write a short title")) return { text: "Crash chat" }
        if (last === "first") {
          firstCalls++
          if (hold) return { text: "never", hold: new Promise<void>(() => undefined) }
        }
        return { text: `re: ${last}` }
      })
      const { api, token } = yield* signedIn(server.baseUrl)
      const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Chatty", interaction_type: "chat" }, token)
      yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { dag_definition: { nodes: [respondNode("answer", "Chat")], edges: [] } }, token)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)).status, 200)
      const session = (yield* api("POST", "/api/v1/chat/sessions", { workflow_id: w.body.id }, token)).body.id as string
      const first = yield* api("POST", `/api/v1/chat/sessions/${session}/messages`, { content: "first" }, token)
      for (let i = 0; i < 200 && firstCalls === 0; i++) yield* sleep(50)
      const second = yield* api("POST", `/api/v1/chat/sessions/${session}/messages`, { content: "second" }, token)
      assert.strictEqual(second.body.status, "queued")

      yield* server.kill()
      hold = false
      yield* server.start()

      let items: Array<{ role: string; content: string; status: string }> = []
      for (let i = 0; i < 300 && items.length < 4; i++) {
        items = (yield* api("GET", `/api/v1/chat/sessions/${session}/messages`, undefined, token)).body.items
        if (items.length < 4) yield* sleep(100)
      }
      assert.deepStrictEqual(items.map((m) => `${m.role}:${m.status}:${m.content}`), [
        "user:answered:first",
        "assistant:completed:re: first",
        "user:answered:second",
        "assistant:completed:re: second"
      ])
      assert.strictEqual(firstCalls, 2, "the interrupted turn's model call runs again")
      const run = (yield* api("GET", `/api/v1/workflow/runs/${second.body.run_id}`, undefined, token)).body
      assert.deepStrictEqual(run.input_params.chat.history, [
        { role: "user", content: "first" },
        { role: "assistant", content: "re: first" }
      ])
      assert.strictEqual(first.status, 202)
    }), 120_000)

  it.effect("SIGKILL while documents are uploaded: each stored document starts exactly one run of its trigger after the restart", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "filed" }))
      yield* server.start()
      const { api, token } = yield* signedIn(server.baseUrl)
      const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Filer" }, token)
      yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { dag_definition: { nodes: [respondNode("file", "F")], edges: [] } }, token)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)).status, 200)
      const kb = (yield* api("POST", "/api/v1/ingestion/knowledge-bases", { name: "Drop box" }, token)).body.id as string
      const bound = yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/document-triggers`, { knowledge_base_id: kb }, token)
      assert.strictEqual(bound.status, 201, bound.text)

      let answered = 0
      const uploads = Effect.forEach(Array.from({ length: 40 }, (_, n) => n), (n) =>
        sleep(n * 15).pipe(
          Effect.zipRight(api("POST", `/api/v1/ingestion/knowledge-bases/${kb}/documents`, { title: `doc ${n}`, content: `Document number ${n}.` }, token)),
          Effect.tap(() => Effect.sync(() => answered++)),
          Effect.catchAllDefect(() => Effect.void)
        ), { concurrency: "unbounded", discard: true })
      const kill = Effect.gen(function*() {
        while (answered < 10) yield* sleep(5)
        yield* server.kill()
      })
      yield* Effect.all([uploads, kill], { concurrency: 2, discard: true })
      yield* server.start()

      const stored = (yield* api("GET", `/api/v1/ingestion/knowledge-bases/${kb}/documents?page_size=100`, undefined, token)).body.items as ReadonlyArray<
        { id: string }
      >
      assert.isAtLeast(stored.length, 10)
      assert.isBelow(stored.length, 40, "the kill came while uploads were in flight")
      const runsOf = Effect.map(
        api("GET", `/api/v1/workflow/workflows/${w.body.id}/runs?trigger_type=document&page_size=100`, undefined, token),
        (r) => r.body.items as ReadonlyArray<{ id: string }>
      )
      for (let i = 0; i < 200 && (yield* runsOf).length < stored.length; i++) yield* sleep(100)
      yield* sleep(1500)
      const runs = yield* runsOf
      const documents: Array<string> = []
      for (const run of runs) {
        const done = yield* waitTerminal(api, token, run.id)
        assert.strictEqual(done.status, "completed", JSON.stringify(done))
        documents.push(done.input_params.document.id)
      }
      assert.deepStrictEqual(documents.sort(), stored.map((d) => d.id).sort(), "one run per stored document, none twice")
    }), 120_000)

  it.effect("a run parked on a nudge survives SIGKILL and restart, and the answer resumes it", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const model = yield* ScriptedModel
      model.setScript((r) => ({ text: `after ${r.messages[0]?.content}` }))
      yield* server.start()
      const { api, token } = yield* signedIn(server.baseUrl)
      const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Parker" }, token)
      yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, {
        dag_definition: {
          nodes: [
            {
              id: "ask",
              type: "notify_user",
              notify_user_config: { operation: "send", mode: "park", recipient: { role: "builder" }, title: "Go?", expires_after_seconds: 600 }
            },
            respondNode("go", "{{nodes.ask.output.response}}")
          ],
          edges: [{ from: "ask", to: "go" }]
        }
      }, token)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)).status, 200)
      const run = (yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/run`, { input_params: {} }, token)).body.id as string
      for (let i = 0; i < 200 && (yield* api("GET", `/api/v1/workflow/runs/${run}`, undefined, token)).body.status !== "paused"; i++) yield* sleep(50)
      yield* server.kill()
      yield* server.start()
      const again = yield* signedIn(server.baseUrl)
      const card = (yield* again.api("GET", "/api/v1/workflow/nudges", undefined, again.token)).body.items.find((c: { run_id: string }) => c.run_id === run)
      assert.isDefined(card, "the card is still open after the restart")
      assert.strictEqual((yield* again.api("POST", `/api/v1/workflow/nudges/${card.id}/respond`, { value: "yes" }, again.token)).status, 200)
      const done = yield* waitTerminal(again.api, again.token, run)
      assert.strictEqual(done.status, "completed", JSON.stringify(done))
      assert.deepStrictEqual(done.output, { text: "after yes" })
    }), 60_000)

  it.effect(
    "SIGKILL during an eval run: after the restart every row is scored, and no row finished before the kill is scored again",
    () =>
      Effect.gen(function*() {
        const server = yield* Server
        const model = yield* ScriptedModel
        const judged = new Map<string, number>()
        model.setScript((r) => {
          const system = String(r.messages[0]?.content ?? "")
          if (system.includes("Score the answer below")) {
            const question = String((JSON.parse(String(r.messages[1]?.content ?? "{}")) as { inputs?: { question?: string } }).inputs?.question)
            judged.set(question, (judged.get(question) ?? 0) + 1)
            return { text: JSON.stringify({ score: 3 }), delayMs: 100 }
          }
          return { text: "answer", delayMs: 150 }
        })
        yield* server.start()
        const { api, token } = yield* signedIn(server.baseUrl)
        const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Graded" }, token)
        yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, {
          dag_definition: { nodes: [respondNode("answer", "E {{workflow_input.question}}")], edges: [] }
        }, token)
        assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)).status, 200)
        const form = new FormData()
        form.append("name", "sixteen")
        form.append("workflow_id", w.body.id)
        form.append("file", new Blob([["question", ...Array.from({ length: 16 }, (_, i) => `q${i}`)].join("\n")], { type: "text/csv" }), "d.csv")
        const dataset = yield* Effect.promise(() =>
          fetch(`${server.baseUrl}/api/v1/eval/datasets`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form }).then((r) =>
            r.json() as Promise<{ id: string }>
          )
        )
        yield* api("POST", `/api/v1/eval/datasets/${dataset.id}/mapping`, { input_map: { question: "question" } }, token)
        const rubric = yield* api("POST", "/api/v1/eval/rubrics", {
          workflow_id: w.body.id,
          name: "r",
          rubric_schema: { type: "object", required: ["score"], properties: { score: { type: "integer" } } },
          rubric_instructions: "Score it"
        }, token)
        const config = yield* api(
          "POST",
          "/api/v1/eval/configs",
          { workflow_id: w.body.id, name: "c", target_type: "workflow", rubric_id: rubric.body.id },
          token
        )
        const run = (yield* api("POST", "/api/v1/eval/runs", { config_id: config.body.id, dataset_id: dataset.id }, token)).body.id as string
        const completed = Effect.map(
          api("GET", `/api/v1/eval/runs/${run}/results?status=completed&page_size=100`, undefined, token),
          (r) => (r.body.items as Array<{ inputs: { question: string } }>).map((x) => x.inputs.question)
        )
        for (let i = 0; i < 300 && (yield* completed).length < 4; i++) yield* sleep(50)
        yield* server.kill()
        const before = new Set(
          yield* Effect.promise(async () => {
            const pgClient = new pg.Client({ connectionString: server.databaseUrl })
            await pgClient.connect()
            const rows = await pgClient.query<{ question: string }>(
              "SELECT d.inputs->>'question' AS question FROM eval_results r JOIN eval_dataset_rows d ON d.id = r.row_id WHERE r.run_id = $1 AND r.status = 'completed'",
              [run]
            ).finally(() => pgClient.end())
            return rows.rows.map((r) => r.question)
          })
        )
        assert.isAtLeast(before.size, 4)
        assert.isBelow(before.size, 16, "the kill came while rows were being scored")
        yield* server.start()
        const again = yield* signedIn(server.baseUrl)
        let status = ""
        for (let i = 0; i < 600 && status !== "completed"; i++) {
          status = (yield* again.api("GET", `/api/v1/eval/runs/${run}`, undefined, again.token)).body.status
          if (status !== "completed") yield* sleep(100)
        }
        const final = (yield* again.api("GET", `/api/v1/eval/runs/${run}`, undefined, again.token)).body
        assert.deepInclude(final, { status: "completed", completed_rows: 16, failed_rows: 0 })
        assert.strictEqual((yield* again.api("GET", `/api/v1/eval/runs/${run}/results?page_size=100`, undefined, again.token)).body.total, 16)
        for (const question of before) assert.strictEqual(judged.get(question), 1, `${question} was finished before the kill and not scored again`)
        assert.strictEqual(judged.size, 16)
      }),
    120_000
  )

  it.effect("SIGKILL and restart under an every-second schedule: no fire time starts two runs, and the fires go on", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "tick" }))
      yield* server.start()
      const { api, token } = yield* signedIn(server.baseUrl)
      const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Ticker" }, token)
      yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { dag_definition: { nodes: [respondNode("tick", "S")], edges: [] } }, token)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)).status, 200)
      const schedule = `/api/v1/workflow/workflows/${w.body.id}/schedule`
      yield* api("PUT", schedule, { cron: "* * * * * *", overlap_policy: "allow" }, token)
      assert.strictEqual((yield* api("POST", `${schedule}/enable`, undefined, token)).status, 200)
      const scheduled = Effect.map(
        api("GET", `/api/v1/workflow/workflows/${w.body.id}/runs?trigger_type=schedule&page_size=100`, undefined, token),
        (r) => r.body.items as ReadonlyArray<{ id: string; scheduled_fire_time: string }>
      )
      for (let i = 0; i < 100 && (yield* scheduled).length < 3; i++) yield* sleep(100)
      yield* server.kill()
      const killedAt = Date.now()
      yield* server.start()
      const restartedAt = Date.now()
      for (let i = 0; i < 100 && (yield* scheduled).filter((r) => Date.parse(r.scheduled_fire_time) > restartedAt).length < 3; i++) yield* sleep(100)
      yield* api("POST", `${schedule}/disable`, undefined, token)
      const runs = yield* scheduled
      const times = runs.map((r) => Date.parse(r.scheduled_fire_time)).sort((a, b) => a - b)
      assert.strictEqual(new Set(times).size, times.length, "no fire time has two runs")
      assert.isTrue(times.every((t) => t % 1000 === 0))
      assert.isAtLeast(times.filter((t) => t < killedAt).length, 3)
      assert.isAtLeast(times.filter((t) => t > restartedAt).length, 3, "the schedule fires after the restart")
      // While it ran the schedule fired every second; across the downtime only the catch-up window's fires ran.
      const gaps = times.slice(1).map((t, i) => t - times[i])
      assert.isAtMost(gaps.filter((g) => g !== 1000).length, 1, gaps.join(","))
      for (const run of runs) {
        const done = yield* waitTerminal(api, token, run.id)
        assert.strictEqual(done.status, "completed", JSON.stringify(done))
      }
    }), 120_000)
})

import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import pg from "pg"
import { freePort } from "../../platform/FreePort.js"
import type { HttpResult } from "../support/Http.js"
import { platformEnv, processPlatform } from "../support/ProcessPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { migratedDatabase } from "../support/TestDatabase.js"
import { respondNode } from "../support/Workflows.js"

const PER_KIND = 24
const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))
const tolerant = (call: Effect.Effect<HttpResult>) => call.pipe(Effect.catchAllCause(() => Effect.succeed(undefined)))

/**
 * Every POST that starts work, its first request dying with the process (Stripe's idempotency
 * semantics): chat messages, external chat turns and eval runs with an Idempotency-Key, webhook
 * deliveries with an X-Webhook-Id, tickets with a client_request_id, sent while the platform is SIGKILLed and retried with the same
 * key until answered. Each retry gets the unit of work its first request created or creates it,
 * never a 409 for ever, and each key makes exactly one unit of work.
 */
layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "150 seconds" })("retries after the process died", (it) => {
  it.scoped(
    "chat message, external chat, webhook delivery, ticket and eval run: a start that died with the process is replayed or started by its retry, once",
    () =>
      Effect.gen(function*() {
        const model = yield* ScriptedModel
        const db = yield* migratedDatabase
        model.setScript((r) => ({ text: `re ${r.messages.at(-1)?.content ?? ""}`.slice(0, 40), delayMs: 20 }))
        const platform = yield* processPlatform({
          ...platformEnv("retry", db.url, model.baseUrl),
          PORT: String(yield* freePort),
          DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-retry-")),
          WEBHOOK_DELIVERIES_PER_MINUTE: "100000"
        })
        yield* platform.start
        const { api, baseUrl } = platform
        const token = (yield* api("POST", "/api/v1/auth/login", { email: "retry@admin.test", password: "retry-admin-password" })).body.access_token as string
        const ok = (r: HttpResult) => assert.isBelow(r.status, 300, r.text)
        const publish = (name: string, dag: unknown, extra: Record<string, unknown> = {}) =>
          Effect.gen(function*() {
            const w = yield* api("POST", "/api/v1/workflow/workflows", { name, ...extra }, token)
            ok(yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { dag_definition: dag }, token))
            ok(yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token))
            return w.body.id as string
          })
        const chatDag = { input_schema: { type: "object", properties: { message: { type: "string" } } }, nodes: [respondNode("answer", "Help.")], edges: [] }
        const chat = yield* publish("Chat", chatDag, { interaction_type: "chat" })
        const external = yield* publish("External", chatDag, { interaction_type: "chat" })
        const hooked = yield* publish("Hooked", { nodes: [respondNode("a", "Hook")], edges: [] })
        const key = (yield* api("POST", "/api/v1/auth/api-keys", { name: "channels" }, token)).body.key as string
        const sessions = yield* Effect.forEach(
          Array.from({ length: PER_KIND }),
          () => Effect.map(api("POST", "/api/v1/chat/sessions", { workflow_id: chat }, token), (r) => r.body.id as string)
        )
        const hook = (yield* api("POST", `/api/v1/workflow/workflows/${hooked}/webhooks`, { name: "events" }, token)).body as { url: string; secret: string }
        // An eval config and dataset (two rows).
        const form = new FormData()
        form.append("name", "golden")
        form.append("workflow_id", hooked)
        form.append("file", new Blob(["question,expected\nq1,a1\nq2,a2"], { type: "text/csv" }), "golden.csv")
        const dataset = yield* Effect.promise(() =>
          fetch(`${baseUrl}/api/v1/eval/datasets`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form }).then((r) =>
            r.json() as Promise<{ id: string }>
          )
        )
        ok(
          yield* api("POST", `/api/v1/eval/datasets/${dataset.id}/mapping`, {
            input_map: { question: "question" },
            expected_output_map: { answer: "expected" }
          }, token)
        )
        const rubric = yield* api("POST", "/api/v1/eval/rubrics", {
          workflow_id: hooked,
          name: "Judge",
          rubric_schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
          rubric_instructions: "Judge."
        }, token)
        const config = yield* api("POST", "/api/v1/eval/configs", {
          workflow_id: hooked,
          name: "Whole",
          target_type: "workflow",
          rubric_id: rubric.body.id,
          judge_model: "test-model"
        }, token)
        ok(config)
        // A team's queue on the built-in desk.
        const me = yield* api("GET", "/api/v1/auth/users/me", undefined, token)
        ok(yield* api("PATCH", `/api/v1/auth/tenants/${me.body.user.tenant_id}/settings`, { user_groups_enabled: true, ticketing_enabled: true }, token))
        const group = (yield* api("POST", "/api/v1/auth/groups", { name: "Desk team" }, token)).body.id as string
        ok(yield* api("POST", `/api/v1/hcm-ticketing/groups/${group}/queue`, { name: "Desk" }, token))

        type Start = { readonly kind: string; readonly n: number; readonly send: Effect.Effect<HttpResult | undefined> }
        const starts: Array<Start> = []
        for (let n = 0; n < PER_KIND; n++) {
          const idem = { headers: { "idempotency-key": `k${n}` } }
          starts.push({ kind: "chat", n, send: tolerant(api("POST", `/api/v1/chat/sessions/${sessions[n]}/messages`, { content: `hello ${n}` }, token, idem)) })
          starts.push({
            kind: "external",
            n,
            send: tolerant(
              api(
                "POST",
                "/api/v1/chat/external/trigger",
                { bearer_token: token, workflow_id: external, channel_type: "slack", message: `ext ${n}`, conversation_id: `C${n}` },
                undefined,
                { ...idem, apiKey: key }
              )
            )
          })
          const body = JSON.stringify({ order: n })
          const signature = `sha256=${createHmac("sha256", hook.secret).update(body).digest("hex")}`
          starts.push({
            kind: "webhook",
            n,
            send: tolerant(
              api("POST", new URL(hook.url, baseUrl).pathname, undefined, undefined, {
                rawBody: body,
                headers: { "content-type": "application/json", "x-signature-256": signature, "x-webhook-id": `evt${n}` }
              })
            )
          })
          starts.push({
            kind: "ticket",
            n,
            send: tolerant(api("POST", `/api/v1/hcm-ticketing/groups/${group}/tickets`, { title: `Ticket ${n}`, client_request_id: `t${n}` }, token))
          })
          if (n < 8) {
            starts.push({
              kind: "eval",
              n,
              send: tolerant(
                api("POST", "/api/v1/eval/runs", { config_id: config.body.id, dataset_id: dataset.id, is_preview: n % 2 === 0 }, token, {
                  headers: { "idempotency-key": `e${n}` }
                })
              )
            })
          }
        }
        // The eval runs with an even key are previews, the odd ones full runs: two bodies, each key its own.

        // Every start is sent, spread over ~1 s, the process is SIGKILLed in the middle, and every
        // start is retried with its key until it is answered.
        const answered = new Map<string, HttpResult>()
        const statuses: Array<number> = []
        let cutOff = 0
        const until = Date.now() + 60_000
        const drive = (s: Start) =>
          Effect.gen(function*() {
            yield* sleep(Math.floor(Math.random() * 1000))
            while (Date.now() < until) {
              const r = yield* s.send
              if (r !== undefined) statuses.push(r.status)
              else cutOff++
              if (r !== undefined && r.status < 300) return void answered.set(`${s.kind}:${s.n}`, r)
              assert.isTrue(r === undefined || [409, 503].includes(r.status), `${s.kind} ${s.n}: ${r?.status} ${r?.text}`)
              yield* sleep(150)
            }
          })
        const sending = yield* Effect.fork(Effect.forEach(starts, drive, { concurrency: "unbounded", discard: true }))
        yield* sleep(500)
        yield* platform.kill
        yield* platform.start
        yield* sending.await
        assert.strictEqual(answered.size, starts.length, `every start answered (${[...new Set(statuses)].join(", ")})`)
        assert.isAbove(cutOff, 0, "some requests were cut off by the kill (or refused while the process was down)")

        // A retry of each, once more: the same unit of work.
        for (const s of starts.filter((s) => s.n % 5 === 0)) {
          const again = yield* s.send
          const first = answered.get(`${s.kind}:${s.n}`)!
          assert.strictEqual(again?.status, first.status, `${s.kind} ${s.n}`)
          assert.deepStrictEqual(again?.body, first.body, `${s.kind} ${s.n}: the replay is the first answer`)
        }

        // Exactly one unit of work per key.
        const client = new pg.Client({ connectionString: db.url })
        yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
        const count = (text: string, values: ReadonlyArray<unknown>) =>
          Effect.promise(() => client.query(text, [...values])).pipe(Effect.map((r) => r.rows as Array<{ n: number; k: string }>))
        const userTurns = yield* count(
          `SELECT session_id AS k, count(*)::int AS n FROM chat_messages WHERE role = 'user' AND session_id = ANY($1) GROUP BY session_id`,
          [sessions]
        )
        assert.strictEqual(userTurns.length, PER_KIND)
        assert.deepStrictEqual([...new Set(userTurns.map((r) => r.n))], [1], "one user turn per chat key")
        const externalRuns = yield* count(`SELECT count(*)::int AS n, '' AS k FROM runs WHERE workflow_id = $1`, [external])
        assert.strictEqual(externalRuns[0].n, PER_KIND, "one run per external chat key")
        const hookRuns = yield* count(`SELECT count(*)::int AS n, '' AS k FROM runs WHERE workflow_id = $1 AND trigger_type = 'webhook'`, [hooked])
        assert.strictEqual(hookRuns[0].n, PER_KIND, "one run per webhook delivery id")
        const evalRuns = yield* count(`SELECT count(*)::int AS n, '' AS k FROM eval_runs WHERE config_id = $1`, [config.body.id])
        assert.strictEqual(evalRuns[0].n, 8, "one eval run per key")
        const tickets = yield* count(
          `SELECT count(*)::int AS n, count(DISTINCT client_request_id)::int AS k FROM tickets WHERE client_request_id LIKE 't%'`,
          []
        )
        assert.deepStrictEqual([tickets[0].n, Number(tickets[0].k)], [PER_KIND, PER_KIND], "one ticket per client_request_id")
      }),
    140_000
  )
})

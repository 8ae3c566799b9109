import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import pg from "pg"
import { freePort } from "../../platform/FreePort.js"
import { apiOf, waitTerminal } from "../support/ProcessPlatform.js"
import { parseSse } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { runStatement, testDatabase } from "../support/TestDatabase.js"
import { servePlatform } from "../support/TestPlatform.js"
import { spansOf, type TraceBody } from "../support/Traces.js"

/** The database the previous run engine left when it was SIGKILLed (see test/fixtures/make-old-kernel-db.ts). */
const restoreFixture = (url: string) =>
  Effect.promise(async () => {
    const dump = readFileSync(new URL("../fixtures/old-kernel.sql", import.meta.url), "utf8")
      .split("\n")
      .filter((line) => !line.startsWith("\\"))
      .join("\n")
    await runStatement(url, dump)
  })

layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "120 seconds" })("runs left by the previous kernel", (it) => {
  it.scoped("running, paused, waiting-on-a-child and pending runs finish under the new kernel; streams and traces carry on", () =>
    Effect.gen(function*() {
      const db = yield* testDatabase
      yield* restoreFixture(db.url)
      const model = yield* ScriptedModel
      const calls: Array<string> = []
      model.setScript((r) => {
        const prompt = r.messages[0]?.content ?? ""
        calls.push(prompt)
        return { text: `${prompt} done` }
      })
      const port = yield* freePort
      yield* servePlatform({
        DATABASE_URL: db.url,
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-compat-")),
        JWT_SECRET: "fixture-jwt-secret-fixture-jwt-secret",
        CREDENTIALS_KEY: Buffer.alloc(32, 7).toString("base64"),
        SHUTDOWN_GRACE_SECONDS: "1",
        LLM_BASE_URL: model.baseUrl,
        LLM_MODELS: "test-model"
      })
      const base = `http://127.0.0.1:${port}`
      const api = apiOf(base)
      const token = (yield* api("POST", "/api/v1/auth/login", { email: "fixture@admin.test", password: "fixture-password" })).body
        .access_token as string
      const client = new pg.Client({ connectionString: db.url })
      yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
      const runs = Object.fromEntries(
        (yield* Effect.promise(() => client.query<{ id: string; workflow_name: string }>("SELECT id, workflow_name FROM runs"))).rows
          .map((r) => [r.workflow_name, r.id])
      ) as Record<string, string>
      // Running mid-node, waiting on a child, pending: they go on by themselves.
      assert.deepStrictEqual((yield* waitTerminal(api, token, runs["Old chain"])).output, { text: "HOLD done" })
      assert.deepStrictEqual((yield* waitTerminal(api, token, runs["Old parent"])).output, { text: "Q done" })
      assert.strictEqual((yield* waitTerminal(api, token, runs["Old child"])).status, "completed")
      assert.deepStrictEqual((yield* waitTerminal(api, token, runs["Old pending"])).output, { text: "Z done" })

      // Paused on an approval: still answerable, and it resumes.
      const pending = (yield* api("GET", "/api/v1/workflow/hitl/pending?page_size=100", undefined, token)).body.items
      const approval = pending.find((i: { run_id: string }) => i.run_id === runs["Old approval"])
      assert.isDefined(approval)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/hitl/${approval.request_id}/respond`, { response: { approved: true } }, token)).status, 200)
      assert.deepStrictEqual((yield* waitTerminal(api, token, runs["Old approval"])).output, { text: "C done" })

      // Nodes the old kernel completed are not run again; the ones it left in flight are.
      assert.deepStrictEqual([...calls].sort(), ["C", "H", "HOLD", "HOLD", "Q", "Z"])

      // Each stream goes on from the old kernel's events: increasing ids, nothing twice, one end.
      for (const runId of Object.values(runs)) {
        const events = parseSse((yield* api("GET", `/api/v1/workflow/runs/${runId}/stream`, undefined, token)).text)
        const ids = events.map((e) => e.id)
        assert.deepStrictEqual(ids, [...ids].sort((a, b) => a - b), runId)
        assert.strictEqual(new Set(ids).size, ids.length)
        const keys = events.filter((e) => e.data.type !== "token").map((e) => `${e.data.type}:${e.data.node_id ?? ""}`)
        assert.strictEqual(new Set(keys).size, keys.length, keys.join(", "))
        assert.strictEqual(keys.filter((k) => k.startsWith("run_completed")).length, 1)
        assert.strictEqual(keys.at(-1), "run_completed:")
      }
      const chain = parseSse((yield* api("GET", `/api/v1/workflow/runs/${runs["Old chain"]}/stream`, undefined, token)).text)
        .filter((e) => e.data.type !== "token")
        .map((e) => `${e.data.type}:${e.data.node_id ?? ""}`)
      assert.deepStrictEqual(chain, [
        "step_started:a",
        "agent_completed:a",
        "step_completed:a",
        "step_started:b",
        "agent_completed:b",
        "step_completed:b",
        "run_completed:"
      ])

      // One trace across both kernels: node a's spans were stored by the old one.
      const trace = (yield* api("GET", `/api/v1/workflow/runs/${runs["Old chain"]}/trace`, undefined, token)).body as TraceBody
      assert.deepStrictEqual(spansOf(trace).filter((s) => s.name.startsWith("node ")).map((s) => s.name).sort(), ["node a", "node b"])
    }))
})

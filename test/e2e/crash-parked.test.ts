import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Server, serverLiveWith, signedIn } from "../support/CrashServer.js"
import { waitTerminal } from "../support/ProcessPlatform.js"
import { eventually } from "../support/RunPlatform.js"
import { parseSse } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { respondNode } from "../support/Workflows.js"

// Runs parked past a tenant's waiting runs live only as rows and an id in memory: a SIGKILL loses
// the id, not the run. After the restart every one of them completes, once (in the recovery
// sweep's order, which hands runs over several at a time: arrival order holds within a process's life).
layer(serverLiveWith({ TENANT_MAX_RUNS_IN_FLIGHT: "1", TENANT_MAX_RUNS_WAITING: "1" }), { excludeTestServices: true, timeout: "180 seconds" })(
  "crash with parked runs",
  (it) => {
    it.effect("SIGKILL with one run in flight, one waiting and two parked: after the restart all four complete, each queued and completed once", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const model = yield* ScriptedModel
        let hold = true
        model.setScript(() => (hold ? { text: "never", hold: new Promise<void>(() => undefined) } : { text: "done" }))
        yield* server.start()
        const { api, token } = yield* signedIn(server.baseUrl)
        const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Parked" }, token)
        yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { dag_definition: { nodes: [respondNode("a", "A")], edges: [] } }, token)
        assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)).status, 200)
        const runs: Array<string> = []
        for (let i = 0; i < 4; i++) {
          runs.push((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/run`, { input_params: {} }, token)).body.id as string)
        }
        yield* eventually(
          Effect.map(
            api("GET", "/metrics"),
            (m) => (/bp_runs_queued\{[^}]*state="parked"[^}]*\} 2\b/.test(m.text) && model.inFlight() === 1 ? true : undefined)
          ),
          "one run at the model, two parked"
        )

        yield* server.kill()
        hold = false
        yield* server.start()

        const ended = []
        for (const id of runs) ended.push(yield* waitTerminal(api, token, id, 60_000))
        assert.deepStrictEqual(ended.map((r) => r.status), ["completed", "completed", "completed", "completed"])
        for (const id of runs.slice(1)) {
          const text = yield* Effect.promise(() =>
            fetch(`${server.baseUrl}/api/v1/workflow/runs/${id}/stream`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text())
          )
          const types = parseSse(text).map((e) => e.data.type).filter((t) => t !== "token")
          assert.strictEqual(types.filter((t) => t === "run_queued").length, 1, types.join(","))
          assert.strictEqual(types.filter((t) => t === "run_completed").length, 1, types.join(","))
        }
      }))
  }
)

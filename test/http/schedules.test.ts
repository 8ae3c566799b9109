import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { ParkNode } from "../support/ParkNode.js"
import { eventually, publishedWorkflow, sleep } from "../support/RunPlatform.js"
import { readStream } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatformLive, withPlatformDb } from "../support/TestPlatform.js"
import { createWorkflow, publish, respondNode, saveDag } from "../support/Workflows.js"

const PlatformLive = Layer.unwrapEffect(
  Effect.map(ScriptedModel, (model) => TestPlatformLive({ env: { LLM_BASE_URL: model.baseUrl, LLM_MODELS: "test-model" }, nodes: [ParkNode] }))
).pipe(Layer.provideMerge(ScriptedModel.layer))

const dag = { nodes: [respondNode("answer", "Report for {{workflow_input.team}}")], edges: [] }
const parkDag = {
  nodes: [{ id: "wait", type: "notify_user", notify_user_config: { operation: "send", mode: "park", expires_after_seconds: 600 } }, respondNode("after")],
  edges: [{ from: "wait", to: "after" }]
}

interface ScheduledRun {
  readonly id: string
  readonly status: string
  readonly trigger_type: string
  readonly scheduled_fire_time?: string
  readonly skip_reason?: string
}

const scheduledRuns = (token: string, id: string) =>
  http("GET", `/api/v1/workflow/workflows/${id}/runs?trigger_type=schedule&page_size=100`, { token }).pipe(
    Effect.map((r) => r.body.items as ReadonlyArray<ScheduledRun>)
  )

const withDb = withPlatformDb

layer(PlatformLive, { excludeTestServices: true, timeout: "60 seconds" })("schedules", (it) => {
  it.effect("PUT validates cron and time zone (400 with the field); enable needs a published version (409); GET, disable, DELETE", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const w = yield* createWorkflow(admin)
      const path = `/api/v1/workflow/workflows/${w.id}/schedule`
      const badCron = yield* http("PUT", path, { token: admin, body: { cron: "61 * * * *" } })
      assert.strictEqual(badCron.status, 400, badCron.text)
      assert.strictEqual(badCron.body.code, "INVALID_SCHEDULE")
      assert.strictEqual(badCron.body.details[0].field, "cron")
      assert.strictEqual((yield* http("PUT", path, { token: admin, body: { cron: "* * * *" } })).body.details[0].field, "cron")
      assert.strictEqual((yield* http("PUT", path, { token: admin, body: { cron: "0 0 31 2 *" } })).body.details[0].field, "cron")
      const badZone = yield* http("PUT", path, { token: admin, body: { cron: "0 9 * * 1-5", timezone: "Mars/Olympus" } })
      assert.strictEqual(badZone.status, 400)
      assert.strictEqual(badZone.body.details[0].field, "timezone")
      assert.strictEqual((yield* http("GET", path, { token: admin })).status, 404)
      // The preview parses as a save does: the next fire times of 9:00 on weekdays in Berlin, in UTC.
      const preview = yield* http("POST", "/api/v1/workflow/schedule-preview", {
        token: admin,
        body: { cron: "0 9 * * 1-5", timezone: "Europe/Berlin", count: 3 }
      })
      assert.strictEqual(preview.status, 200, preview.text)
      assert.lengthOf(preview.body.next_fire_times, 3)
      for (const t of preview.body.next_fire_times as Array<string>) {
        const local = new Date(t).toLocaleString("en-GB", { timeZone: "Europe/Berlin", weekday: "short", hour: "2-digit", minute: "2-digit", hour12: false })
        assert.match(local, /^(Mon|Tue|Wed|Thu|Fri) 09:00$/)
      }
      const wrong = yield* http("POST", "/api/v1/workflow/schedule-preview", { token: admin, body: { cron: "0 0 31 2 *" } })
      assert.strictEqual(wrong.body.details[0].field, "cron")
      const huge = yield* http("POST", "/api/v1/workflow/schedule-preview", { token: admin, body: { cron: `${"1,".repeat(50_000)}1 * * * *` } })
      assert.strictEqual(huge.status, 400, "a cron expression is at most 200 characters")

      const put = yield* http("PUT", path, { token: admin, body: { cron: "0 9 * * 1-5", timezone: "Europe/Berlin", input_params: { team: "ops" } } })
      assert.strictEqual(put.status, 200, put.text)
      assert.deepInclude(put.body, {
        workflow_id: w.id,
        cron: "0 9 * * 1-5",
        timezone: "Europe/Berlin",
        input_params: { team: "ops" },
        overlap_policy: "skip",
        enabled: false,
        next_fire_at: null,
        managed: false
      })
      const refused = yield* http("POST", `${path}/enable`, { token: admin })
      assert.strictEqual(refused.status, 409)
      assert.strictEqual(refused.body.code, "NOT_PUBLISHED")

      yield* saveDag(admin, w.id, dag)
      assert.strictEqual((yield* publish(admin, w.id)).status, 200)
      const enabled = yield* http("POST", `${path}/enable`, { token: admin })
      assert.strictEqual(enabled.status, 200, enabled.text)
      assert.isTrue(enabled.body.enabled)
      // 09:00 in Berlin is 08:00 or 07:00 UTC, on a weekday.
      const next = new Date(enabled.body.next_fire_at)
      assert.include([7, 8], next.getUTCHours())
      assert.strictEqual(next.getUTCMinutes(), 0)
      assert.include([1, 2, 3, 4, 5], next.getUTCDay())
      assert.isAbove(next.getTime(), Date.now())

      // Only builders write schedules; other tenants' AI Employees are 404.
      const user = yield* createMember(admin, "user")
      const userToken = yield* loginToken(user.email, user.password)
      assert.strictEqual((yield* http("PUT", path, { token: userToken, body: { cron: "* * * * *" } })).status, 403)
      assert.strictEqual((yield* http("GET", path, { token: userToken })).status, 200)

      const disabled = yield* http("POST", `${path}/disable`, { token: admin })
      assert.isFalse(disabled.body.enabled)
      assert.isNull(disabled.body.next_fire_at)
      assert.strictEqual((yield* http("DELETE", path, { token: admin })).status, 204)
      assert.strictEqual((yield* http("DELETE", path, { token: admin })).status, 404)
      assert.strictEqual((yield* http("POST", `${path}/enable`, { token: admin })).status, 404)
    }))

  it.effect("an every-second schedule starts one run per fire time, pinned to the version active at fire time", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "report" }))
      const id = yield* publishedWorkflow(admin, dag)
      const path = `/api/v1/workflow/workflows/${id}/schedule`
      assert.strictEqual(
        (yield* http("PUT", path, { token: admin, body: { cron: "* * * * * *", input_params: { team: "ops" }, overlap_policy: "allow" } })).status,
        200
      )
      assert.strictEqual((yield* http("POST", `${path}/enable`, { token: admin })).status, 200)
      yield* eventually(Effect.map(scheduledRuns(admin, id), (runs) => runs.length >= 2 ? true : undefined), "two scheduled runs")
      // A new version published meanwhile is what later fires run.
      yield* saveDag(admin, id, { nodes: [respondNode("answer", "v2 for {{workflow_input.team}}")], edges: [] })
      assert.strictEqual((yield* publish(admin, id)).status, 200)
      yield* sleep(2500)
      assert.strictEqual((yield* http("POST", `${path}/disable`, { token: admin })).status, 200)
      yield* sleep(300)
      const runs = yield* scheduledRuns(admin, id)
      const times = runs.map((r) => new Date(r.scheduled_fire_time!).getTime()).sort((a, b) => a - b)
      assert.isAtLeast(times.length, 4)
      assert.strictEqual(new Set(times).size, times.length, "no fire time has two runs")
      times.forEach((t, i) => {
        assert.strictEqual(t % 1000, 0)
        if (i > 0) assert.strictEqual(t - times[i - 1], 1000, "one run per second, none missed")
      })
      for (const run of runs) {
        const detail = yield* eventually(
          Effect.map(http("GET", `/api/v1/workflow/runs/${run.id}`, { token: admin }), (r) =>
            ["completed", "failed"].includes(r.body.status) ? r.body : undefined),
          "the scheduled run to end"
        )
        assert.strictEqual(detail.status, "completed")
        assert.strictEqual(detail.trigger_type, "schedule")
      }
      const versions = new Set((yield* Effect.forEach(runs, (r) =>
        http("GET", `/api/v1/workflow/runs/${r.id}`, { token: admin }))).map((r) => r.body.version))
      assert.strictEqual(versions.size, 2, "fires before and after the publish ran different versions")
      assert.isTrue(model.requests.some((r) => r.messages[0]?.content === "v2 for ops"))
      const schedule = yield* http("GET", path, { token: admin })
      assert.strictEqual(new Date(schedule.body.last_fire_at).getTime(), times.at(-1))
    }))

  it.effect("overlap_policy skip records a skipped run while the previous scheduled run is still going", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const id = yield* publishedWorkflow(admin, parkDag)
      const path = `/api/v1/workflow/workflows/${id}/schedule`
      yield* http("PUT", path, { token: admin, body: { cron: "* * * * * *" } })
      yield* http("POST", `${path}/enable`, { token: admin })
      const runs = yield* eventually(
        Effect.map(scheduledRuns(admin, id), (runs) => runs.filter((r) => r.status === "skipped").length >= 2 ? runs : undefined),
        "skipped fires"
      )
      yield* http("POST", `${path}/disable`, { token: admin })
      const parked = runs.filter((r) => r.status !== "skipped")
      assert.strictEqual(parked.length, 1, "one run holds the schedule; the others were skipped")
      const skipped = runs.find((r) => r.status === "skipped")!
      assert.match(skipped.skip_reason ?? "", /overlap_policy skip/)
      assert.isDefined(skipped.scheduled_fire_time)
      // Its stream replays its one event and closes (it used to stay open: a skipped run wrote no event).
      const stream = yield* readStream(admin, skipped.id, { timeoutMs: 5_000 })
      assert.deepStrictEqual(stream.events.map((e) => [e.id, e.data.type, e.data.status]), [[1, "run_skipped", "skipped"]])
      const filtered = yield* http("GET", `/api/v1/workflow/workflows/${id}/runs?status=skipped`, { token: admin })
      assert.isAtLeast(filtered.body.total, 2)
    }))

  it.effect("fires missed while the platform was down are not replayed, except the most recent one", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "report" }))
      const id = yield* publishedWorkflow(admin, dag)
      const path = `/api/v1/workflow/workflows/${id}/schedule`
      // Hourly, half an hour away from now: no fire of its own falls inside the test.
      const minute = (new Date().getUTCMinutes() + 30) % 60
      yield* http("PUT", path, { token: admin, body: { cron: `${minute} * * * *`, timezone: "UTC", input_params: { team: "ops" } } })
      yield* http("POST", `${path}/enable`, { token: admin })
      // As if the platform had been down for three hours: three fires were missed.
      yield* withDb((c) => c.query(`UPDATE schedules SET next_fire_at = now() - interval '3 hours' WHERE workflow_id = $1`, [id]))
      const runs = yield* eventually(Effect.map(scheduledRuns(admin, id), (runs) => runs.length > 0 ? runs : undefined), "the catch-up fire")
      yield* sleep(1000)
      assert.strictEqual((yield* scheduledRuns(admin, id)).length, 1)
      const fired = new Date(runs[0].scheduled_fire_time!)
      assert.strictEqual(fired.getUTCMinutes(), minute)
      assert.isBelow(Date.now() - fired.getTime(), 60 * 60_000, "the most recent missed fire")
      const schedule = yield* http("GET", path, { token: admin })
      assert.isAbove(new Date(schedule.body.next_fire_at).getTime(), Date.now())
    }))

  it.effect("the schedule node starts and stops the managed schedule of a dashboard AI Employee; elsewhere it blocks publish", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      const start = {
        nodes: [{
          id: "every",
          type: "schedule",
          schedule_config: { operation: "start", cron: "0 7 * * *", timezone: "Asia/Tokyo", input_params: { team: "{{workflow_input.team}}" } }
        }],
        edges: []
      }
      const form = yield* createWorkflow(admin, { interaction_type: "form" })
      yield* saveDag(admin, form.id, start)
      const blocked = yield* publish(admin, form.id)
      assert.strictEqual(blocked.status, 422)
      assert.include(blocked.body.details.map((d: { code: string }) => d.code), "SCHEDULE_NODE_REQUIRES_DASHBOARD")
      const badCron = { nodes: [{ ...start.nodes[0], schedule_config: { operation: "start", cron: "0 25 * * *", timezone: "UTC" } }], edges: [] }
      const dashboard = yield* createWorkflow(admin, { interaction_type: "dashboard" })
      yield* saveDag(admin, dashboard.id, badCron)
      const invalid = yield* publish(admin, dashboard.id)
      assert.strictEqual(invalid.status, 422)
      assert.include(invalid.body.details.map((d: { code: string }) => d.code), "SCHEDULE_INVALID")

      yield* saveDag(admin, dashboard.id, start)
      assert.strictEqual((yield* publish(admin, dashboard.id)).status, 200)
      const dry = yield* http("POST", `/api/v1/workflow/workflows/${dashboard.id}/dry-run`, { token: admin, body: { input_params: { team: "ops" } } })
      yield* eventually(
        Effect.map(http("GET", `/api/v1/workflow/runs/${dry.body.id}`, { token: admin }), (r) => r.body.status === "completed" ? true : undefined),
        "the dry run"
      )
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/workflows/${dashboard.id}/schedule`, { token: admin })).status, 404, "a dry run changes nothing")

      const run = yield* http("POST", `/api/v1/workflow/workflows/${dashboard.id}/run`, { token: admin, body: { input_params: { team: "ops" } } })
      const ended = yield* eventually(
        Effect.map(http("GET", `/api/v1/workflow/runs/${run.body.id}`, { token: admin }), (r) =>
          ["completed", "failed"].includes(r.body.status) ? r.body : undefined),
        "the run"
      )
      assert.strictEqual(ended.status, "completed", ended.error)
      const schedule = yield* http("GET", `/api/v1/workflow/workflows/${dashboard.id}/schedule`, { token: admin })
      assert.deepInclude(schedule.body, { cron: "0 7 * * *", timezone: "Asia/Tokyo", enabled: true, managed: true, input_params: { team: "ops" } })
      assert.strictEqual(new Date(schedule.body.next_fire_at).getUTCHours(), 22)
      assert.strictEqual(ended.output.next_fire_at, schedule.body.next_fire_at)

      yield* saveDag(admin, dashboard.id, { nodes: [{ id: "end", type: "schedule", schedule_config: { operation: "stop" } }], edges: [] })
      assert.strictEqual((yield* publish(admin, dashboard.id)).status, 200)
      const stop = yield* http("POST", `/api/v1/workflow/workflows/${dashboard.id}/run`, { token: admin, body: { input_params: {} } })
      const stopped = yield* eventually(
        Effect.map(http("GET", `/api/v1/workflow/runs/${stop.body.id}`, { token: admin }), (r) =>
          r.body.status === "completed" ? r.body : undefined),
        "the stop run"
      )
      assert.deepStrictEqual(stopped.output, { operation: "stop", stopped: true })
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/workflows/${dashboard.id}/schedule`, { token: admin })).status, 404)
    }))
})

import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { uuidV7 } from "../../platform/TimedId.js"
import { createMember, createTenant } from "../support/Fixtures.js"
import { adminToken } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { withPlatformDb } from "../support/TestPlatform.js"
import { simpleDag } from "../support/Workflows.js"

// Issue 38, point 4: the run lists' exact totals sum counted hours (services/workflow/RunTotals.ts,
// run migration 0011) instead of counting the whole history; whatever changes a past hour's runs
// shows in the next total.

const DAY = 86_400_000
const HOUR = 3_600_000
/** An hour is counted ten minutes after its end (RunTotals.ts). */
const SETTLE_MS = 600_000
const [S1, S2] = [crypto.randomUUID(), crypto.randomUUID()]
const midday = (daysAgo: number) => new Date(Math.floor(Date.now() / DAY) * DAY - daysAgo * DAY + DAY / 2)

interface Copy {
  readonly daysAgo: number
  readonly status?: string
  readonly trigger?: string
  readonly session?: string
}

/** Copies of a finished run created on past days (ids of their time, so each lands in its day's partition). */
const copies = (template: string, list: ReadonlyArray<Copy>) =>
  withPlatformDb(async (c) => {
    const ids: Array<string> = []
    for (const { daysAgo, session = null, status = "completed", trigger = "ui" } of list) {
      const at = midday(daysAgo)
      const id = uuidV7(at.getTime())
      await c.query(
        `INSERT INTO runs SELECT (jsonb_populate_record(r, jsonb_build_object('id', $2::uuid, 'status', $3::text, 'created_at', $4::timestamptz,
           'finished_at', $4::timestamptz, 'trigger_type', $5::text, 'session_id', $6::text))).* FROM runs r WHERE r.id = $1`,
        [template, id, status, at, trigger, session]
      )
      ids.push(id)
    }
    return ids
  })

const sqlCount = (query: string, values: ReadonlyArray<unknown>) => withPlatformDb((c) => c.query(query, [...values]).then((r) => Number(r.rows[0].n)))

layer(RunPlatformLive({ RETENTION_SWEEP_SECONDS: "1" }), { excludeTestServices: true, timeout: "120 seconds" })("exact run totals from counted hours", (it) => {
  it.effect("an AI Employee's run list and the recent list count exactly while past days' runs are counted, added, changed and removed", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "done" }))
      const tenant = yield* createTenant(admin, `totals-${Date.now().toString(36)}`)
      const member = yield* createMember(admin, "system_admin", { tenantId: tenant.id })
      const token = yield* loginToken(member.email, member.password, tenant.slug)
      const workflow = yield* publishedWorkflow(token, simpleDag())
      const template = (yield* startRun(token, workflow, { message: "x" })).body.id as string
      yield* waitForStatus(token, template, ["completed"])
      const ids = yield* copies(template, [
        { daysAgo: 3 },
        { daysAgo: 3, trigger: "api" },
        { daysAgo: 3, status: "failed" },
        { daysAgo: 3, session: S1 },
        { daysAgo: 2, session: S1 },
        { daysAgo: 2, session: S2 },
        { daysAgo: 2 },
        { daysAgo: 1, trigger: "api" }
      ])

      const listTotal = (query = "") =>
        http("GET", `/api/v1/workflow/workflows/${workflow}/runs?page_size=1${query}`, { token }).pipe(Effect.map((r) => r.body.total as number))
      const recentTotal = http("GET", "/api/v1/workflow/runs?limit=1", { token }).pipe(Effect.map((r) => r.body.total as number))
      const counted = () => sqlCount("SELECT count(*) AS n FROM run_hour_marks WHERE tenant_id = $1 AND counted", [tenant.id])
      const direct = (where = "", values: ReadonlyArray<unknown> = []) =>
        sqlCount(`SELECT count(*) AS n FROM runs WHERE workflow_id = $1 AND NOT is_dry_run ${where}`, [workflow, ...values])
      const directRecent = () =>
        sqlCount(
          `SELECT count(*) FILTER (WHERE session_id IS NULL) + count(DISTINCT session_id) AS n FROM runs
            WHERE tenant_id = $1 AND NOT is_dry_run AND parent_run_id IS NULL`,
          [tenant.id]
        )
      const agree = Effect.gen(function*() {
        assert.strictEqual(yield* listTotal(), yield* direct())
        assert.strictEqual(yield* listTotal("&status=failed"), yield* direct("AND status = 'failed'"))
        assert.strictEqual(yield* listTotal("&status=completed&trigger_type=api"), yield* direct("AND status = 'completed' AND trigger_type = 'api'"))
        const since = new Date(midday(3).getTime() + 60_000)
        assert.strictEqual(yield* listTotal(`&since=${since.toISOString()}`), yield* direct("AND created_at >= $2", [since]))
        const dayStart = new Date(Math.floor(midday(2).getTime() / DAY) * DAY)
        assert.strictEqual(yield* listTotal(`&since=${dayStart.toISOString()}`), yield* direct("AND created_at >= $2", [dayStart]))
        assert.strictEqual(yield* recentTotal, yield* directRecent())
      })

      // Before its hours are counted (more than a list counts itself), a total counts the history.
      yield* agree
      assert.strictEqual(yield* listTotal(), 9)
      assert.strictEqual(yield* recentTotal, 8)
      // The sweep counts the closed hours (every hour from the first run's, empty ones too); the totals now sum their counts.
      // Their number depends on the time of day: from the first copy's hour (midday three days ago) to the last closed hour.
      const closedHours = () => (Math.floor((Date.now() - SETTLE_MS) / HOUR) * HOUR - midday(3).getTime()) / HOUR
      yield* eventually(counted().pipe(Effect.map((n) => (n >= closedHours() ? true : undefined))), "the closed hours to be counted")
      assert.isAbove(yield* sqlCount("SELECT count(*) AS n FROM run_hour_counts WHERE tenant_id = $1", [tenant.id]), 0)
      yield* agree
      // What a total sums is the counted hours' rows (a count skewed on purpose shows; put back).
      const skew = (by: number) =>
        withPlatformDb((c) =>
          c.query("UPDATE run_hour_counts SET runs = runs + $2, solo = solo + $2 WHERE tenant_id = $1 AND status = 'failed'", [tenant.id, by])
        )
      yield* skew(100)
      assert.strictEqual(yield* listTotal(), 109)
      assert.strictEqual(yield* recentTotal, 108)
      yield* skew(-100)

      // A run of a past day changes status (a paused run ends days later): its hour is counted again.
      yield* withPlatformDb((c) => c.query("UPDATE runs SET status = 'failed' WHERE id = $1", [ids[0]]))
      yield* agree
      assert.strictEqual(yield* listTotal("&status=failed"), 2)
      // A run added to a past day, and one removed from it (retention), show at once.
      yield* copies(template, [{ daysAgo: 2, status: "failed" }])
      assert.strictEqual(yield* listTotal("&status=failed"), 3)
      yield* withPlatformDb((c) => c.query("DELETE FROM runs WHERE id = $1", [ids[6]]))
      yield* agree
      assert.strictEqual(yield* listTotal(), 9)
      // Another chat turn in an old session: the session still counts once.
      yield* copies(template, [{ daysAgo: 1, session: S1 }])
      yield* agree
      assert.strictEqual(yield* recentTotal, 8)
      // The oldest day's runs all go (expiry): its hours are counted again, as empty, and the totals sum counted hours again.
      yield* withPlatformDb((c) =>
        c.query("DELETE FROM runs WHERE tenant_id = $1 AND created_at < $2", [tenant.id, new Date(Math.floor(midday(2).getTime() / DAY) * DAY)])
      )
      yield* agree
      yield* eventually(
        sqlCount("SELECT count(*) AS n FROM run_hour_marks WHERE tenant_id = $1 AND NOT counted", [tenant.id]).pipe(
          Effect.map((n) => (n === 0 ? true : undefined))
        ),
        "the emptied hours to be counted again"
      )
      const before = yield* listTotal()
      yield* skew(100)
      assert.strictEqual(yield* listTotal(), before + 100, "the totals sum counted hours after an expiry")
      yield* skew(-100)
      yield* agree

      // A session with more runs than the list's first read (50): it stands once, as its latest run, and the runs past it follow.
      const S3 = crypto.randomUUID()
      yield* copies(template, Array.from({ length: 60 }, () => ({ daysAgo: 1, session: S3 })))
      const all = (yield* http("GET", "/api/v1/workflow/runs?limit=50", { token })).body
      const listed = all.items.map((r: { id: string }) => r.id)
      assert.strictEqual(new Set(listed).size, listed.length, "no entry twice")
      assert.strictEqual(all.total, yield* directRecent())
      assert.strictEqual(listed.length, all.total, "every entry, those past the session's runs too")
      const s3 = all.items.filter((r: { session_id?: string }) => r.session_id === S3)
      assert.strictEqual(s3.length, 1)
      assert.strictEqual(s3[0].run_count, 60)
      const tail = (yield* http("GET", `/api/v1/workflow/runs?limit=3&offset=${listed.length - 3}`, { token })).body.items.map((r: { id: string }) => r.id)
      assert.deepStrictEqual(tail, listed.slice(-3))

      // Pages ending past the first thousand entries are read in one statement: the same list either way.
      yield* copies(template, Array.from({ length: 1_200 }, (_, i) => ({ daysAgo: 1, ...(i % 10 === 0 ? { session: S3 } : {}) })))
      const page = (limit: number, offset: number) =>
        http("GET", `/api/v1/workflow/runs?limit=${limit}&offset=${offset}`, { token }).pipe(Effect.map((r) => r.body))
      const walked = yield* page(20, 975)
      const deep = yield* page(30, 975)
      assert.strictEqual(walked.items.length, 20)
      assert.deepStrictEqual(deep.items.slice(0, 20).map((r: { id: string }) => r.id), walked.items.map((r: { id: string }) => r.id))
      assert.strictEqual(deep.total, yield* directRecent())
      const beyond = yield* page(10, 5_000)
      assert.deepStrictEqual([beyond.items, beyond.total], [[], deep.total])
    }))
})

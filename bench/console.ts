/**
 * The console (part of `npm run bench`, BENCH_ONLY=console; issue 33): the platform in this
 * process on a database holding BENCH_CONSOLE_RUNS (100,000) runs of one tenant, seeded by SQL,
 * and Debian's Chromium (playwright-core) signed in. Measured, BENCH_CONSOLE_ROUNDS (7) times
 * each, medians and worst:
 * - the JavaScript the first load of `/runs` transfers (compressed, as served);
 * - cold load: a browser with an empty cache opens `/runs` until the first page's rows are drawn
 *   (from the navigation's start: HTML, scripts, session, history query, render);
 * - warm load: the same with the scripts cached;
 * - in the app: from the inbox, a click on "Runs" until its rows are drawn;
 * - a status filter, and the next page (keyset cursor), until their rows are drawn;
 * - the history API alone: the first page, a filtered one, a page 90,000 runs deep;
 * - a run of 5,000 events: its events view opened until the run's last event is listed.
 * BENCH_CONSOLE_DETAIL=1 prints each load's resource and long-frame timeline.
 */
import { Effect } from "effect"
import pg from "pg"
import { type Browser, chromium, type Page } from "playwright-core"
import { type EventRow, storedEvents } from "../runtime/run/RunEvents.js"
import { encodeRunCursor } from "../services/workflow/RunCursor.js"
import { benchDatabase, benchPlatform, instantModel, json } from "./support.js"

const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 100_000)
const ROUNDS = Number(process.env.BENCH_CONSOLE_ROUNDS ?? 7)
const EVENTS = 5_000
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const figure = (name: string, xs: ReadonlyArray<number>) =>
  `${name}: median ${median(xs).toFixed(0)} ms, worst ${Math.max(...xs).toFixed(0)} ms (${xs.length} rounds)`

/**
 * Resolves, inside the page, when `selector` matches at least `count` elements (and, with `notFirst`,
 * the first match's text has changed from it): the time since `since` (performance.now). Written
 * as page source: this project's TypeScript has no DOM types.
 */
const drawnAfter = (page: Page, since: number, selector: string, count = 1, notFirst?: string | null) =>
  page.evaluate<number>(`new Promise((resolve) => {
    const check = () => {
      const found = document.querySelectorAll(${JSON.stringify(selector)})
      const changed = ${notFirst === undefined ? "true" : `found[0]?.textContent !== ${JSON.stringify(notFirst)}`}
      return found.length >= ${count} && changed ? resolve(performance.now() - ${since}) : requestAnimationFrame(check)
    }
    check()
  })`)

const now = (page: Page) => page.evaluate<number>("performance.now()")

/** Opens `url` in a new page of a context with the session (and a warm or empty cache): time to `selector` from the navigation's start. */
const openTimed = (browser: Browser, state: string, url: string, selector: string, warm?: Page) =>
  Effect.promise(async () => {
    const page = warm ?? await (await browser.newContext({ storageState: JSON.parse(state) })).newPage()
    await page.goto(url, { waitUntil: "commit" })
    const ms = await drawnAfter(page, 0, selector)
    if (process.env.BENCH_CONSOLE_DETAIL !== undefined) {
      console.log(
        ms,
        await page.evaluate<string>(
          `JSON.stringify(performance.getEntries().map((e) => [e.name.replace(location.origin, ""), Math.round(e.startTime), Math.round(e.responseEnd ?? (e.startTime + e.duration)), e.encodedBodySize]))`
        )
      )
    }
    const scripts = await page.evaluate<number>(
      `performance.getEntriesByType("resource").filter((e) => e.name.endsWith(".js")).reduce((n, e) => n + e.encodedBodySize, 0)`
    )
    return { page, ms, scripts }
  })

export const consoleBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const { base, token } = yield* benchPlatform({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "bench-model" })
  const node = { id: "answer", type: "agent", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Hi" } }
  const ids: Array<string> = []
  for (const name of ["Invoices", "Support", "Onboarding"]) {
    const w = yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name })
    yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${w.id}`, { dag_definition: { nodes: [node], edges: [] } })
    yield* json(base, token, "POST", `/api/v1/workflow/workflows/${w.id}/publish`)
    ids.push(w.id as string)
  }
  const real = yield* json(base, token, "POST", `/api/v1/workflow/workflows/${ids[0]}/run`, { input_params: {} })
  const client = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
  const query = (text: string, values: ReadonlyArray<unknown> = []) => Effect.promise(() => client.query(text, [...values]))
  while ((yield* query("SELECT status FROM runs WHERE id = $1", [real.id])).rows[0]?.status !== "completed") yield* Effect.sleep("50 millis")

  // The real run's events, its token repeated to 5,000 (what a long streamed answer journals).
  const events = storedEvents(
    String(real.id),
    (yield* query("SELECT seq, type, payload, body FROM run_events WHERE run_id = $1 ORDER BY seq", [real.id])).rows as Array<EventRow>
  )
  const token0 = events.find((e) => e.type === "token")!
  const long = [
    ...events.filter((e) => e.type === "step_started"),
    ...Array.from({ length: EVENTS }, (_, i) => ({ type: "token", payload: { ...token0.payload, delta: `piece ${i} `.padEnd(64, ".") } })),
    ...events.filter((e) => e.type !== "step_started" && e.type !== "token")
  ]
  yield* query("DELETE FROM run_events WHERE run_id = $1", [real.id])
  yield* query(
    `INSERT INTO run_events (run_id, seq, dedupe_key, type, payload)
     SELECT $1, s.n, 'bench:' || s.n, e.type, e.payload FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS s(value, n), LATERAL (SELECT s.value->>'type' AS type, s.value->'payload' AS payload) e`,
    [real.id, JSON.stringify(long)]
  )
  yield* query("UPDATE runs SET event_seq = $2 WHERE id = $1", [real.id, long.length])

  const tenant = (yield* query("SELECT tenant_id FROM runs WHERE id = $1", [real.id])).rows[0].tenant_id as string
  const t0 = performance.now()
  yield* query(
    `INSERT INTO runs (id, tenant_id, workflow_id, workflow_name, version, status, trigger_type, created_at, started_at, finished_at)
     SELECT gen_random_uuid(), $1, ($2::uuid[])[1 + i % 3], (ARRAY['Invoices','Support','Onboarding'])[1 + i % 3], 1,
            (ARRAY['completed','completed','completed','failed','cancelled','paused'])[1 + i % 6],
            (ARRAY['ui','api','webhook','schedule','email'])[1 + i % 5],
            now() - make_interval(secs => i * 3), now() - make_interval(secs => i * 3 - 0.2), now() - make_interval(secs => i * 3 - 2)
     FROM generate_series(1, $3::int) AS i`,
    [tenant, ids, RUNS]
  )
  yield* query("ANALYZE runs")
  const seeded = `${RUNS.toLocaleString("en")} runs seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`

  // The history API alone.
  const api = (path: string) =>
    Effect.promise(async () => {
      const t = performance.now()
      const r = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })
      await r.arrayBuffer()
      if (!r.ok) throw new Error(`${path}: ${r.status}`)
      return performance.now() - t
    })
  const deep =
    (yield* query("SELECT created_at::text AS key, id FROM runs WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC OFFSET 90000 LIMIT 1", [tenant]))
      .rows[0] as { key: string; id: string }
  const apiPaths = {
    "API first page (50)": "/api/v1/workflow/runs/history?page_size=50",
    "API status=failed, trigger=webhook": "/api/v1/workflow/runs/history?page_size=50&status=failed&trigger_type=webhook",
    "API one AI Employee, since a day ago": `/api/v1/workflow/runs/history?page_size=50&workflow_id=${ids[1]}&since=${
      new Date(Date.now() - 86_400_000).toISOString()
    }`,
    "API a page 90,000 runs deep (cursor)": `/api/v1/workflow/runs/history?page_size=50&cursor=${encodeRunCursor("newest", deep.key, deep.id)}`
  }
  const apiTimes: Record<string, Array<number>> = {}
  for (const [name, path] of Object.entries(apiPaths)) {
    yield* api(path)
    apiTimes[name] = []
    for (let i = 0; i < ROUNDS; i++) apiTimes[name].push(yield* api(path))
  }

  const browser = yield* Effect.acquireRelease(
    Effect.promise(() => chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] })),
    (b) => Effect.promise(() => b.close())
  )
  const state = yield* Effect.promise(async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${base}/sign-in`)
    await page.getByLabel("Email").fill("bench@example.test")
    await page.getByRole("button", { name: "Continue" }).click()
    await page.getByLabel("Password").fill("bench-password")
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Runs" }).waitFor()
    const s = JSON.stringify(await context.storageState())
    await context.close()
    return s
  })
  const rows = "tbody tr a.mono"
  const cold: Array<number> = []
  const warm: Array<number> = []
  const inApp: Array<number> = []
  const filtered: Array<number> = []
  const paged: Array<number> = []
  const runPage: Array<number> = []
  let scripts = 0
  for (let i = 0; i < ROUNDS; i++) {
    const first = yield* openTimed(browser, state, `${base}/runs`, rows)
    cold.push(first.ms)
    scripts = first.scripts
    const again = yield* openTimed(browser, state, `${base}/runs`, rows, first.page)
    warm.push(again.ms)
    const page = again.page
    yield* Effect.promise(async () => {
      await page.goto(`${base}/inbox`)
      await page.getByRole("heading", { name: "Inbox" }).waitFor()
      const start = await now(page)
      await page.getByRole("link", { name: "Runs", exact: true }).click()
      inApp.push(await drawnAfter(page, start, rows))
      const s2 = await now(page)
      await page.getByLabel("Status").selectOption("failed")
      filtered.push(await drawnAfter(page, s2, "tbody tr .badge.bad", 50))
      const top = await page.locator(rows).first().textContent()
      const s3 = await now(page)
      await page.getByRole("button", { name: "Next page" }).click()
      paged.push(await drawnAfter(page, s3, rows, 1, top))
      await page.goto(`${base}/runs/${real.id}?tab=events`, { waitUntil: "commit" })
      runPage.push(await drawnAfter(page, 0, "li.event[data-type=\"run_completed\"]"))
      await page.context().close()
    })
  }
  return [
    seeded,
    `JavaScript transferred by the first load of /runs (compressed): ${(scripts / 1024).toFixed(1)} KiB`,
    figure("cold load of /runs to its first 50 rows (empty cache)", cold),
    figure("warm load of /runs (scripts cached)", warm),
    figure("inbox -> Runs click to rows", inApp),
    figure("status filter to 50 failed rows", filtered),
    figure("next page (keyset) to new rows", paged),
    figure(`run page, events view, ${EVENTS.toLocaleString("en")} events to the last one listed`, runPage),
    ...Object.entries(apiTimes).map(([name, xs]) => figure(name, xs))
  ]
}))

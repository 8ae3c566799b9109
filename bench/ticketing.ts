/**
 * Ticketing (part of `npm run bench`, BENCH_ONLY=ticketing): a queue of BENCH_TICKETS (100,000)
 * tickets (written straight into the table), then BENCH_LISTS (200) list requests one at a time,
 * each with a filter and a sort (status and priority, assignee and updated_at, q and number),
 * through HTTP: p50 and p99 of the request.
 */
import { Effect } from "effect"
import pg from "pg"
import { benchDatabase, benchPlatform, json, percentile } from "./support.js"

const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000)
const LISTS = Number(process.env.BENCH_LISTS ?? 200)

export const ticketingBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const { base, token } = yield* benchPlatform({ DATABASE_URL: db.url })
  const me = yield* json(base, token, "GET", "/api/v1/auth/users/me")
  const user = me.user as { tenant_id: string; email: string }
  yield* json(base, token, "PATCH", `/api/v1/auth/tenants/${user.tenant_id}/settings`, { user_groups_enabled: true, ticketing_enabled: true })
  const group = (yield* json(base, token, "POST", "/api/v1/auth/groups", { name: "Support" })).id as string
  const queue = (yield* json(base, token, "POST", `/api/v1/hcm-ticketing/groups/${group}/queue`, { name: "Support" })).id as string
  const client = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
  const t0 = performance.now()
  yield* Effect.promise(() =>
    client.query(
      `
    INSERT INTO tickets (id, tenant_id, queue_id, title, description, status, status_rank, priority, priority_rank, labels, requester_email, assignee_email, created_at, updated_at)
    SELECT gen_random_uuid(), $1, $2, 'Ticket ' || i || CASE WHEN i % 7 = 0 THEN ' printer jam' ELSE ' login problem' END, 'Reported by the bench',
      (ARRAY['OPEN','IN_PROGRESS','HOLD','CLOSED'])[1 + i % 4], i % 4,
      (ARRAY['CRITICAL','HIGH','MEDIUM','LOW'])[1 + (i / 4) % 4], (i / 4) % 4,
      CASE WHEN i % 10 = 0 THEN ARRAY['vip'] ELSE ARRAY[]::text[] END,
      'customer' || (i % 500) || '@example.test', CASE WHEN i % 3 = 0 THEN 'agent' || (i % 20) || '@example.test' END,
      now() - (i || ' seconds')::interval, now() - ((i * 7) % 100000 || ' seconds')::interval
    FROM generate_series(1, $3) AS i`,
      [user.tenant_id, queue, TICKETS]
    )
  )
  yield* Effect.promise(() => client.query("ANALYZE tickets"))
  const loaded = (performance.now() - t0) / 1000
  const lists = [
    "status=OPEN&sort=priority&order=asc",
    "assignee_email=agent3@example.test&sort=updated_at&order=desc",
    "q=printer&sort=number&order=desc",
    "label=vip&sort=status",
    "priority=critical"
  ]
  const timings: Array<number> = []
  for (let i = 0; i < LISTS; i++) {
    const started = performance.now()
    const page = yield* json(base, token, "GET", `/api/v1/hcm-ticketing/groups/${group}/tickets?${lists[i % lists.length]}&page_size=25`)
    if ((page.items as Array<unknown>).length === 0) return yield* Effect.dieMessage(`empty page for ${lists[i % lists.length]}`)
    timings.push(performance.now() - started)
  }
  timings.sort((a, b) => a - b)
  return [
    `ticketing: a queue of ${TICKETS} tickets (loaded in ${loaded.toFixed(1)} s), ${LISTS} list requests one at a time, each with a filter and a sort`,
    `  RESULT_TICKET_LIST p50 ${percentile(timings, 0.5).toFixed(1)} ms, p99 ${percentile(timings, 0.99).toFixed(1)} ms`
  ]
}))

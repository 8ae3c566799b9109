import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { handOverQuiet } from "../../runtime/run/Recovery.js"
import { runRecord } from "../support/KernelHarness.js"
import { pgJournalBackend, PgJournalLive } from "../support/PgJournal.js"

// The recovery sweep's quiet runs, on PostgreSQL: page after page by (updated_at, id), ties
// included, each quiet run once; runs active on this process, held, dormant, finished or recent
// are not handed over.
layer(PgJournalLive, { timeout: "60 seconds", excludeTestServices: true })("recovery sweep", (it) => {
  it.effect("hands over every quiet run once, oldest first, a page at a time, passing over the ones active here", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { backend, tenantId } = yield* pgJournalBackend
      // One instant for all: runs updated the same number of seconds ago tie exactly.
      const [{ now }] = yield* sql<{ now: string }>`SELECT now()::text AS now`
      const run = (agoSeconds: number, set: string = "") =>
        Effect.gen(function*() {
          const record = runRecord(tenantId, randomUUID())
          yield* backend.insertRun(record)
          yield* sql.unsafe(`UPDATE runs SET updated_at = $1::timestamptz - make_interval(secs => ${agoSeconds})${set} WHERE id = $2`, [now, record.id])
          return record.id
        })
      // Four quiet at the same instant (ties are ordered by id), three later, one running.
      const tied = yield* Effect.forEach([1, 2, 3, 4], () => run(60))
      const later = yield* Effect.forEach([30, 20, 10], (ago) => run(ago))
      const running = yield* run(15, ", status = 'running'")
      // Not handed over: recent, held, dormant, finished.
      yield* run(1)
      yield* run(60, ", held = true")
      yield* run(60, ", status = 'running', dormant = true")
      yield* run(60, ", status = 'completed'")
      const active = new Set([tied[1], later[0]])

      const sweep = (pageSize: number, maxPages: number) =>
        Effect.gen(function*() {
          const sent: Array<string> = []
          const handed = yield* handOverQuiet({
            staleSeconds: 5,
            active: (id) => active.has(id),
            send: (ids) => Effect.sync(() => sent.push(...ids.map((r) => r.id))),
            pageSize,
            maxPages
          })
          assert.strictEqual(handed, sent.length)
          return sent
        })
      const expected = [...[...tied].sort(), later[0], later[1], running, later[2]].filter((id) => !active.has(id))
      for (const pageSize of [1, 2, 3, 50]) assert.deepStrictEqual(yield* sweep(pageSize, 100), expected, `pages of ${pageSize}`)
      // A pass ends after its last page: two pages of two are the first four quiet runs.
      assert.deepStrictEqual(yield* sweep(2, 2), [...tied].sort().filter((id) => !active.has(id)))
    }))
})

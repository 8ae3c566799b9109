import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { memoryJournalLayer, MemoryJournalStore } from "../../runtime/run/MemoryJournal.js"
import type { JournalBackend } from "../support/KernelHarness.js"
import { kernelProperties } from "../support/KernelProperties.js"
import { pgJournalBackend, PgJournalLive } from "../support/PgJournal.js"

// Issue 36, point 4: one property suite for the kernel over each journal: in memory (no database,
// milliseconds a scenario) and PostgreSQL (the product's), so the two cannot drift apart.

const store = new MemoryJournalStore()
const memoryBackend: JournalBackend = {
  insertRun: (record) => Effect.sync(() => store.insertRun(record)),
  resolveWait: (runId, nodeId, resolution) => Effect.sync(() => store.resolveWait(runId, nodeId, resolution)),
  answerHitl: (runId, nodeId, response) => Effect.sync(() => store.answerHitl(runId, nodeId, response)),
  events: (runId) => Effect.sync(() => store.events(runId))
}

layer(memoryJournalLayer(store))("the kernel over the in-memory journal", (it) => {
  it.effect("random DAGs, crashes, answers and cancels keep the run, step and event invariants (400 scenarios)", () =>
    kernelProperties(memoryBackend, randomUUID(), 400))
})

layer(PgJournalLive, { timeout: "120 seconds" })("the kernel over the PostgreSQL journal", (it) => {
  it.effect("the same suite (150 scenarios)", () =>
    Effect.gen(function*() {
      const backend = yield* pgJournalBackend
      return yield* kernelProperties(backend.backend, backend.tenantId, 150)
    }), { timeout: 120_000 })
})

/**
 * What an idle platform costs (BENCH_ONLY=idle): one `ROLE=all` process as npm start runs it
 * (compiled, its own process) on a database of its own, nothing asked of it. After
 * BENCH_IDLE_SETTLE seconds (20: the start's own work done), BENCH_IDLE_WINDOWS (3) windows of
 * BENCH_IDLE_SECONDS (10): the process's CPU (all its threads) per second, PostgreSQL's, and the
 * transactions per second on its database (`pg_stat_database`).
 */
import { Effect } from "effect"
import pg from "pg"
import { postgresCpuMs, processCpuMs } from "./Cpu.js"
import { benchDatabase, childPlatform, instantModel } from "./support.js"

const SETTLE = Number(process.env.BENCH_IDLE_SETTLE ?? 20)
const WINDOWS = Number(process.env.BENCH_IDLE_WINDOWS ?? 3)
const SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10)

export const idleBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const { pids } = yield* childPlatform({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "bench-model" })
  const stats = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => stats.connect()), () => Effect.promise(() => stats.end()))
  const transactions = Effect.promise(() =>
    stats.query<{ n: string }>("SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()")
  ).pipe(Effect.map((r) => Number(r.rows[0].n)))
  yield* Effect.sleep(`${SETTLE} seconds`)
  const lines = [`idle platform: one ROLE=all process, nothing asked of it, ${WINDOWS} windows of ${SECONDS} s after ${SETTLE} s`]
  for (let i = 0; i < WINDOWS; i++) {
    const [cpu0, pg0, tx0] = [processCpuMs(pids[0]), postgresCpuMs(), yield* transactions]
    yield* Effect.sleep(`${SECONDS} seconds`)
    // The statistics collector reports a backend's counts when it goes idle, at most every 0.5 s.
    const tx = (yield* transactions) - tx0 - 1
    lines.push(
      `  RESULT_IDLE window ${i + 1}: platform ${((processCpuMs(pids[0]) - cpu0) / SECONDS).toFixed(1)} ms CPU a second, PostgreSQL ${
        ((postgresCpuMs() - pg0) / SECONDS).toFixed(1)
      } ms, ${(tx / SECONDS).toFixed(1)} transactions a second`
    )
  }
  return lines
}))

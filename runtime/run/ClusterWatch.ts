import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schedule, Schema } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { decodeRows } from "../../platform/Rows.js"

const runnerRows = decodeRows("cluster_runners", Schema.Struct({ address: Schema.String, age: Schema.Number }))

/**
 * What an operator must hear of the cluster, at warning level and once per event: a runner that
 * stopped answering (its heartbeat older than `RUNNER_LEASE_SECONDS`), and, on a runner, the
 * shards it took over from one. Watched from the cluster's own tables (the cluster logs these at
 * debug level only), by processes of a scaled-out platform; untraced, being a poll.
 */
export const ClusterWatchLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { role, runnerHost, runnerLeaseSeconds, runnerPort } = yield* AppConfig
  if (role === "all") return
  const sql = yield* SqlClient.SqlClient
  const self = role === "runners" ? `${runnerHost}:${runnerPort}` : undefined
  const live = new Map<string, boolean>()
  let owners = new Map<string, string>()

  const poll = Effect.gen(function*() {
    const runners = yield* sql`SELECT address, extract(epoch FROM now() - last_heartbeat)::float8 AS age FROM cluster_runners`.pipe(runnerRows)
    const nowLive = new Map(runners.map((r) => [r.address, r.age <= runnerLeaseSeconds]))
    for (const r of runners) {
      const was = live.get(r.address)
      const is = nowLive.get(r.address) === true
      if (was === true && !is && r.address !== self) {
        yield* Effect.logWarning(
          `Runner ${r.address} stopped answering: no heartbeat for ${
            Math.round(r.age)
          } s (RUNNER_LEASE_SECONDS=${runnerLeaseSeconds}); its shards go to the live runners`
        )
      } else if (was === false && is) {
        yield* Effect.logInfo(`Runner ${r.address} answers again`)
      }
    }
    live.clear()
    for (const [address, is] of nowLive) live.set(address, is)
    if (self === undefined) return
    const locks = yield* sql`SELECT shard_id, address FROM cluster_locks`.pipe(
      decodeRows("cluster_locks", Schema.Struct({ shard_id: Schema.String, address: Schema.String }))
    )
    const taken = new Map<string, number>()
    for (const lock of locks) {
      const before = owners.get(lock.shard_id)
      if (lock.address === self && before !== undefined && before !== self && nowLive.get(before) !== true) {
        taken.set(before, (taken.get(before) ?? 0) + 1)
      }
    }
    for (const [from, count] of taken) {
      yield* Effect.logWarning(`Took over ${count} shard(s) of runner ${from}, whose lease ran out; its unfinished runs continue here`)
    }
    owners = new Map(locks.map((l) => [l.shard_id, l.address]))
  })

  yield* poll.pipe(
    Effect.catchAll(() => Effect.void),
    Effect.repeat(Schedule.spaced(`${Math.max(1, Math.floor(runnerLeaseSeconds / 3))} seconds`)),
    Effect.withTracerEnabled(false),
    Effect.forkScoped
  )
}))

import { ShardingConfig, Snowflake, SqlMessageStorage, SqlRunnerStorage } from "@effect/cluster"
import { Effect } from "effect"

/**
 * The cluster's own tables (messages, runners, shard locks), created the way the cluster creates
 * them, in a scope closed at once: run under the migration lock, so that processes started
 * together never race on `CREATE TABLE IF NOT EXISTS`.
 */
export const clusterTables = Effect.scoped(Effect.gen(function*() {
  yield* SqlMessageStorage.make()
  yield* SqlRunnerStorage.make({})
})).pipe(Effect.provide([ShardingConfig.layer({ shardLockDisableAdvisory: true }), Snowflake.layerGenerator]), Effect.asVoid)

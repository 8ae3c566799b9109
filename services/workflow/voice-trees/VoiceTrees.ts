import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, JsonObject, Timestamp } from "../../../platform/Rows.js"
import { traced } from "../../../platform/Traced.js"
import { requireBuilder, requireReader } from "../../../schemas/Authorization.js"
import { notFound } from "../../../schemas/Errors.js"
import { TenantId, VoiceTreeId, VoiceTreeVersionId } from "../../../schemas/Ids.js"
import type { PageParams } from "../../../schemas/Pagination.js"
import { pageOf, pageOffset } from "../../../schemas/Pagination.js"
import type { Principal } from "../../../schemas/Principal.js"

const TreeRow = Schema.Struct({
  id: VoiceTreeId,
  tenant_id: TenantId,
  name: Schema.String,
  active_version_id: Schema.NullOr(VoiceTreeVersionId),
  next_number: Schema.Number,
  created_at: Timestamp
})

const TreeVersionRow = Schema.Struct({
  id: VoiceTreeVersionId,
  tree_id: VoiceTreeId,
  number: Schema.Number,
  content: JsonObject,
  published_at: Schema.NullOr(Timestamp),
  superseded_at: Schema.NullOr(Timestamp),
  created_at: Timestamp
})

type TreeRow = typeof TreeRow.Type
type TreeVersionRow = typeof TreeVersionRow.Type

const treeRows = decodeRows("voice_trees", TreeRow)
const treeVersionRows = decodeRows("voice_tree_versions", TreeVersionRow)

/**
 * Voice trees and their versions. Revert works in place: the target becomes active, its
 * superseded_at is cleared and every newer version is stamped superseded; nothing is written
 * or deleted otherwise. The head is the newest version whose superseded_at is unset.
 */
export class VoiceTrees extends Effect.Service<VoiceTrees>()("VoiceTrees", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const view = (tree: TreeRow) =>
      sql`SELECT id FROM voice_tree_versions WHERE tree_id = ${tree.id}
        AND superseded_at IS NULL ORDER BY number DESC LIMIT 1`.pipe(decodeRows("voice_tree_versions", Schema.Struct({ id: VoiceTreeVersionId }))).pipe(
        Effect.map((rows) => ({
          id: tree.id,
          tenant_id: tree.tenant_id,
          name: tree.name,
          active_version_id: tree.active_version_id,
          head_version_id: rows[0]?.id ?? null,
          created_at: tree.created_at
        }))
      )

    const versionView = (tree: TreeRow) => (v: TreeVersionRow) => ({ ...v, active: v.id === tree.active_version_id })

    const findTree = (principal: Principal, id: string, lock = false) =>
      sql`SELECT * FROM voice_trees WHERE tenant_id = ${principal.tenantId} AND id = ${id}
        ${lock ? sql`FOR UPDATE` : sql``}`.pipe(treeRows).pipe(
        Effect.flatMap((rows) => (rows[0] === undefined ? Effect.fail(notFound("Voice tree")) : Effect.succeed(rows[0])))
      )

    const findVersion = (tree: TreeRow, versionId: string) =>
      sql`SELECT * FROM voice_tree_versions WHERE tree_id = ${tree.id} AND id = ${versionId}`.pipe(treeVersionRows).pipe(
        Effect.flatMap((rows) => (rows[0] === undefined ? Effect.fail(notFound("Voice tree version")) : Effect.succeed(rows[0])))
      )

    const addVersionRow = (tree: TreeRow, content: Record<string, unknown>) =>
      Effect.gen(function*() {
        const [bumped] = yield* sql`UPDATE voice_trees SET next_number = next_number + 1
          WHERE id = ${tree.id} RETURNING next_number`.pipe(decodeRows("voice_trees", Schema.Struct({ next_number: Schema.Number })))
        const rows = yield* sql`INSERT INTO voice_tree_versions ${
          sql.insert({ id: randomUUID(), tree_id: tree.id, number: bumped.next_number, content: JSON.stringify(content) })
        } RETURNING *`.pipe(treeVersionRows)
        return rows[0]
      })

    const create = (principal: Principal, input: { name: string; content?: Record<string, unknown> | undefined }) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        return yield* sql.withTransaction(Effect.gen(function*() {
          const [tree] = yield* sql`INSERT INTO voice_trees ${sql.insert({ id: randomUUID(), tenant_id: principal.tenantId, name: input.name })} RETURNING *`
            .pipe(treeRows)
          if (input.content !== undefined) yield* addVersionRow(tree, input.content)
          return yield* view(tree)
        }))
      }).pipe(Effect.orDie)

    const list = (principal: Principal, params: PageParams) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const rows = yield* sql`SELECT * FROM voice_trees WHERE tenant_id = ${principal.tenantId}
          ORDER BY created_at DESC, id LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(treeRows).pipe(Effect.orDie)
        const [c] = yield* sql`SELECT count(*)::int AS total FROM voice_trees
          WHERE tenant_id = ${principal.tenantId}`.pipe(decodeRows("voice_trees", Schema.Struct({ total: Schema.Number }))).pipe(Effect.orDie)
        return pageOf(params, yield* Effect.forEach(rows, (r) => Effect.orDie(view(r))), c?.total ?? 0)
      })

    const get = (principal: Principal, id: VoiceTreeId) =>
      findTree(principal, id).pipe(Effect.tap(() => requireReader(principal)), Effect.flatMap(view), Effect.catchTag("SqlError", Effect.die))

    const addVersion = (principal: Principal, id: VoiceTreeId, content: Record<string, unknown>) =>
      Effect.gen(function*() {
        yield* findTree(principal, id)
        yield* requireBuilder(principal)
        return yield* sql.withTransaction(Effect.gen(function*() {
          const tree = yield* findTree(principal, id, true)
          return versionView(tree)(yield* addVersionRow(tree, content))
        }))
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    const versions = (principal: Principal, id: VoiceTreeId) =>
      Effect.gen(function*() {
        const tree = yield* findTree(principal, id)
        yield* requireReader(principal)
        const rows = yield* sql`SELECT * FROM voice_tree_versions WHERE tree_id = ${tree.id}
          ORDER BY number DESC`.pipe(treeVersionRows)
        return { items: rows.map(versionView(tree)) }
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    const version = (principal: Principal, id: VoiceTreeId, versionId: VoiceTreeVersionId) =>
      Effect.gen(function*() {
        const tree = yield* findTree(principal, id)
        yield* requireReader(principal)
        return versionView(tree)(yield* findVersion(tree, versionId))
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    const activate = (principal: Principal, id: VoiceTreeId, versionId: VoiceTreeVersionId, supersedeNewer: boolean) =>
      Effect.gen(function*() {
        yield* findTree(principal, id)
        yield* requireBuilder(principal)
        return yield* sql.withTransaction(Effect.gen(function*() {
          const tree = yield* findTree(principal, id, true)
          const target = yield* findVersion(tree, versionId)
          if (supersedeNewer) {
            yield* sql`UPDATE voice_tree_versions SET superseded_at = now() WHERE tree_id = ${tree.id} AND number > ${target.number}`
            yield* sql`UPDATE voice_tree_versions SET superseded_at = NULL WHERE id = ${target.id}`
          }
          yield* sql`UPDATE voice_tree_versions SET published_at = COALESCE(published_at, now()) WHERE id = ${target.id}`
          const [updated] = yield* sql`UPDATE voice_trees SET active_version_id = ${target.id}
            WHERE id = ${tree.id} RETURNING *`.pipe(treeRows)
          return yield* view(updated)
        }))
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    /** Publishing activates the version as it is; only revert moves the head back. */
    const publish = (principal: Principal, id: VoiceTreeId, versionId: VoiceTreeVersionId) => activate(principal, id, versionId, false)

    const revert = (principal: Principal, id: VoiceTreeId, versionId: VoiceTreeVersionId) => activate(principal, id, versionId, true)

    return traced("VoiceTrees", { create, list, get, addVersion, versions, version, publish, revert })
  })
}) {}

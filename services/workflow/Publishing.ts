import { SqlClient } from "@effect/sql"
import { Effect, Equal, Option } from "effect"
import { traced } from "../../platform/Traced.js"
import { retryTransient } from "../../platform/Transient.js"
import { blocksPublish } from "../../runtime/dag/Validate.js"
import { requireBuilder, requireReader } from "../../schemas/Authorization.js"
import type { DagDefinition } from "../../schemas/Dag.js"
import { isErrorCode } from "../../schemas/ErrorCodes.js"
import { conflict, notFound, Unprocessable, unprocessable } from "../../schemas/Errors.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOf, pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { People } from "../ports/People.js"
import { KnowledgeSnapshots } from "../ports/PublishChecks.js"
import { DagChecks } from "./DagChecks.js"
import { requireEditable } from "./Editable.js"
import { toSummary, toVersion, type VersionRow, VersionsRepo } from "./VersionsRepo.js"
import { configOf, type WorkflowRow, WorkflowsRepo } from "./WorkflowsRepo.js"

const sameDag = (a: DagDefinition, b: DagDefinition) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b))
const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : v !== null && typeof v === "object"
    ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => x.localeCompare(y)).map(([k, x]) => [k, canonical(x)]))
    : v

const exposedOutputs = (dag: DagDefinition) =>
  (Array.isArray(dag.outputs) ? dag.outputs : []).flatMap((o: unknown) => {
    const out = o as { name?: unknown; value?: unknown; exposed?: unknown }
    return typeof out.name === "string" && typeof out.value === "string" && out.exposed === true
      ? [{ name: out.name, value: out.value, exposed: true }]
      : []
  })

const withNames = <V extends { readonly saved_by: string | null; readonly published_by?: string }>(v: V, names: ReadonlyMap<string, string>) => {
  const saved = v.saved_by !== null ? names.get(v.saved_by) : undefined
  const published = v.published_by !== undefined ? names.get(v.published_by) : undefined
  return { ...v, ...(saved !== undefined ? { saved_by_name: saved } : {}), ...(published !== undefined ? { published_by_name: published } : {}) }
}

const isUniqueViolation = (e: { cause?: unknown }) => (e.cause as { code?: string } | undefined)?.code === "23505"

/** Publish, version history, revert and the deprecated promote. */
export class Publishing extends Effect.Service<Publishing>()("Publishing", {
  dependencies: [DagChecks.Default, VersionsRepo.Default, WorkflowsRepo.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const workflows = yield* WorkflowsRepo
    const versions = yield* VersionsRepo
    const checks = yield* DagChecks
    const knowledge = yield* KnowledgeSnapshots
    const people = yield* People

    const visible = workflows.visible

    /** Runs `body` with the workflow row locked, for builders of an editable AI Employee. */
    const writing = <A, E>(principal: Principal, id: string, body: (row: WorkflowRow) => Effect.Effect<A, E>) =>
      Effect.gen(function*() {
        yield* visible(principal, id)
        yield* requireBuilder(principal)
        // A deadlock's victim (a run's insert or the day's partition split holding what it waits
        // for) is rolled back whole, and tried again.
        return yield* retryTransient(sql.withTransaction(Effect.gen(function*() {
          const row = yield* workflows.lock(principal, id).pipe(Effect.orDie)
          if (Option.isNone(row) || row.value.archived_at !== null) return yield* Effect.fail(notFound("AI Employee"))
          yield* requireEditable(row.value)
          return yield* body(row.value)
        }))).pipe(Effect.catchTag("SqlError", Effect.die))
      })

    const versionOf = (principal: Principal, id: string, number: number) =>
      versions.get(principal, id, number).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("Version")), onSome: Effect.succeed }))
      )

    /**
     * One transaction: checks; reuse the latest draft when it holds the current DAG, else save
     * one; snapshot configuration, exposed outputs and knowledge bases; activate it alone.
     */
    const publish = (principal: Principal, id: WorkflowId) =>
      writing(principal, id, (row) =>
        Effect.gen(function*() {
          const report = yield* checks.check(principal, row)
          if (blocksPublish(report)) {
            const errors = report.warnings.filter((w) => w.severity === "error")
            // A client that switches on `code` sees the first blocker's own documented code.
            const first = errors[0]?.code
            return yield* Effect.fail(
              new Unprocessable({
                code: first !== undefined && isErrorCode(first) ? first : "PUBLISH_CHECKS_FAILED",
                message: `Publish refused: ${errors.map((e) => e.code).join(", ")}`,
                details: errors,
                ...(report.agentTypeIssues.length > 0 ? { issues: report.agentTypeIssues } : {})
              })
            )
          }
          const latest = yield* versions.get(principal, id, row.latest_version).pipe(Effect.orDie)
          const reuse = Option.isSome(latest) && latest.value.published_at === null &&
            sameDag(latest.value.dag_definition, row.dag_definition)
          const draft: VersionRow = reuse
            ? latest.value
            : yield* versions.insert(principal, id, {
              number: row.latest_version + 1,
              dag_definition: row.dag_definition,
              saved_by: principal.userId
            })
          // A draft staged by revert brings back its knowledge-base content when it goes live.
          const dispatch = draft.reverted_from !== null
            ? yield* knowledge.restore(principal.tenantId, draft.knowledge_base_snapshot ?? [])
            : undefined
          const activated = yield* versions.activate(principal, id, draft.number, {
            config_snapshot: configOf(row),
            exposed_outputs: exposedOutputs(row.dag_definition),
            knowledge_base_snapshot: [...(yield* knowledge.capture(principal.tenantId, row.knowledge_base_ids))]
          })
          yield* workflows.update(principal, id, {
            latest_version: Math.max(row.latest_version, draft.number),
            active_version: draft.number,
            status: "published"
          })
          return {
            ...toVersion(activated),
            warnings: report.warnings,
            ...(dispatch !== undefined ? { data_revert_dispatch: dispatch } : {})
          }
        }))

    const list = (principal: Principal, id: WorkflowId, params: PageParams) =>
      Effect.gen(function*() {
        yield* visible(principal, id)
        yield* requireReader(principal)
        const { rows, total } = yield* versions.list(principal, id, params.page_size, pageOffset(params)).pipe(Effect.orDie)
        // Who saved and published each version, by name: the few people of a page, asked once each.
        const ids = [...new Set(rows.flatMap((r) => [r.saved_by, r.published_by]).filter((u): u is NonNullable<typeof u> => u !== null))]
        const found = yield* Effect.forEach(ids, (u) => Effect.map(people.member(principal, u), (m) => [u, Option.map(m, (x) => x.name)] as const), {
          concurrency: 4
        })
        const names = new Map(found.flatMap(([u, name]) => (Option.isSome(name) ? [[u as string, name.value]] : [])))
        return pageOf(params, rows.map((r) => withNames(toSummary(r), names)), total)
      })

    const get = (principal: Principal, id: WorkflowId, number: number) =>
      Effect.gen(function*() {
        yield* visible(principal, id)
        yield* requireReader(principal)
        return toVersion(yield* versionOf(principal, id, number))
      })

    const update = (principal: Principal, id: WorkflowId, number: number, patch: {
      name?: string | null | undefined
      description?: string | null | undefined
    }) =>
      writing(principal, id, () =>
        versions.rename(principal, id, number, patch).pipe(
          Effect.catchTag(
            "SqlError",
            (e) => isUniqueViolation(e) ? Effect.fail(conflict("VERSION_NAME_TAKEN", "Another version has that name")) : Effect.die(e)
          ),
          Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("Version")), onSome: (v) => Effect.succeed(toVersion(v)) }))
        )).pipe(Effect.withSpan("Publishing.updateVersion"))

    const remove = (principal: Principal, id: WorkflowId, number: number) =>
      writing(principal, id, () =>
        Effect.gen(function*() {
          const version = yield* versionOf(principal, id, number)
          if (version.active) return yield* conflict("ACTIVE_VERSION", "The active version cannot be deleted")
          yield* versions.remove(principal, id, number).pipe(Effect.orDie)
        })).pipe(Effect.withSpan("Publishing.deleteVersion"))

    /**
     * Revert stages a new draft holding the target's DAG, configuration and knowledge-base set,
     * and returns it; the live version keeps serving until that draft is published, which is
     * when the knowledge-base content is rolled back (data_revert_dispatch).
     */
    const revert = (principal: Principal, id: WorkflowId, number: number) =>
      writing(principal, id, (row) =>
        Effect.gen(function*() {
          const target = yield* versionOf(principal, id, number)
          const next = row.latest_version + 1
          const draft = yield* versions.insert(principal, id, {
            number: next,
            dag_definition: target.dag_definition,
            saved_by: principal.userId,
            reverted_from: target.number,
            config_snapshot: target.config_snapshot,
            knowledge_base_snapshot: target.knowledge_base_snapshot
          })
          yield* workflows.update(principal, id, {
            dag_definition: target.dag_definition,
            latest_version: next,
            ...(target.config_snapshot !== null ? { config: { ...configOf(row), ...target.config_snapshot } } : {}),
            ...(target.knowledge_base_snapshot !== null
              ? { knowledge_base_ids: target.knowledge_base_snapshot.map((k) => k.knowledge_base_id) }
              : {})
          })
          return toVersion(draft)
        }))

    /** Deprecated: activates a published version as it is; the DAG and knowledge bases stay. */
    const promote = (principal: Principal, id: WorkflowId, number: number) =>
      writing(principal, id, () =>
        Effect.gen(function*() {
          const target = yield* versionOf(principal, id, number)
          if (target.published_at === null) {
            return yield* conflict("VERSION_IS_DRAFT", "A draft can never be the active version; publish or revert instead")
          }
          const activated = yield* versions.activate(principal, id, number, undefined)
          yield* workflows.update(principal, id, { active_version: number, status: "published" })
          return toVersion(activated)
        }))

    const documentDiff = (principal: Principal, id: WorkflowId, from: number, to: number) =>
      Effect.gen(function*() {
        yield* visible(principal, id)
        yield* requireReader(principal)
        const a = yield* versionOf(principal, id, from)
        const b = yield* versionOf(principal, id, to)
        if (a.published_at === null || b.published_at === null) {
          return yield* unprocessable("VERSION_NOT_PUBLISHED", "document-diff compares two published versions")
        }
        const docs = (v: VersionRow) =>
          new Map((v.knowledge_base_snapshot ?? []).flatMap((kb) =>
            kb.documents.map((d) => [`${kb.knowledge_base_id}/${d.document_id}`, { kb: kb.knowledge_base_id, d }] as const)
          ))
        const before = docs(a)
        const after = docs(b)
        const ref = (e: { kb: string; d: { document_id: string } }) => ({ knowledge_base_id: e.kb, document_id: e.d.document_id })
        return {
          from_version: from,
          to_version: to,
          added: [...after].filter(([k]) =>
            !before.has(k)
          ).map(([, e]) => ref(e)),
          removed: [...before].filter(([k]) => !after.has(k)).map(([, e]) => ref(e)),
          changed: [...after].filter(([k, e]) => {
            const old = before.get(k)
            return old !== undefined && !Equal.equals(old.d.content_hash, e.d.content_hash)
          }).map(([, e]) => ref(e))
        }
      })

    return traced("Publishing", { publish, list, get, update, remove, revert, promote, documentDiff })
  })
}) {}

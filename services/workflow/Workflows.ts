import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { decodePageToken, encodePageToken } from "../../platform/PageToken.js"
import { traced } from "../../platform/Traced.js"
import { retiredPresetSteps } from "../../runtime/agents/Presets.js"
import { requireBuilder, requireReader } from "../../schemas/Authorization.js"
import { conflict, forbidden, notFound, unprocessable } from "../../schemas/Errors.js"
import type { TenantId, WorkflowId } from "../../schemas/Ids.js"
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import type { InteractionType, PatchWorkflowRequest, WorkflowConfig } from "../../schemas/Workflow.js"
import { defaultWorkflowConfig } from "../../schemas/Workflow.js"
import { People } from "../ports/People.js"
import { DagChecks } from "./DagChecks.js"
import { requireEditable } from "./Editable.js"
import { builtInTemplates } from "./Templates.js"
import { VersionsRepo } from "./VersionsRepo.js"
import { configOf, toWorkflow, type WorkflowChanges, type WorkflowRow, WorkflowsRepo } from "./WorkflowsRepo.js"

/** "" clears the category (Uncategorized), a value sets it, omitted leaves it. */
const categoryChange = (category: string | undefined) => category === undefined ? undefined : category.trim() === "" ? null : category

const encodeCursor = (offset: number) => encodePageToken({ o: offset })
const decodeCursor = (cursor: string): number | undefined => {
  const o = decodePageToken(cursor)?.o
  return typeof o === "number" && Number.isInteger(o) && o >= 0 ? o : undefined
}

/** AI Employees: lifecycle, configuration, templates, clones and adoption. */
export class Workflows extends Effect.Service<Workflows>()("Workflows", {
  dependencies: [DagChecks.Default, VersionsRepo.Default, WorkflowsRepo.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WorkflowsRepo
    const versions = yield* VersionsRepo
    const people = yield* People
    const checks = yield* DagChecks

    const visible = repo.visible

    const withWarnings = (principal: Principal, row: WorkflowRow) =>
      checks.check(principal, row).pipe(Effect.map((report) => ({ ...toWorkflow(row), warnings: report.warnings })))

    const insertNew = (principal: Principal, input: {
      name: string
      description: string | null
      interaction_type: InteractionType
      icon: string | null
      category: string | null
      dag_definition: Record<string, unknown>
      config: WorkflowConfig
      knowledge_base_ids: ReadonlyArray<string>
      legacy_steps?: ReadonlyArray<string>
    }) =>
      sql.withTransaction(Effect.gen(function*() {
        const row = yield* repo.insert(principal, {
          id: randomUUID(),
          ...input,
          latest_version: 1,
          created_by: principal.userId
        })
        yield* versions.insert(principal, row.id, { number: 1, dag_definition: input.dag_definition, saved_by: principal.userId })
        return row
      })).pipe(Effect.orDie)

    const create = (principal: Principal, input: {
      name: string
      description?: string | undefined
      interaction_type: InteractionType
      icon?: string | undefined
      category?: string | undefined
    }) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const row = yield* insertNew(principal, {
          name: input.name,
          description: input.description ?? null,
          interaction_type: input.interaction_type,
          icon: input.icon ?? null,
          category: categoryChange(input.category) ?? null,
          dag_definition: {},
          config: defaultWorkflowConfig,
          knowledge_base_ids: []
        })
        return yield* withWarnings(principal, row)
      })

    const get = (principal: Principal, id: WorkflowId) =>
      repo.get(principal, id).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("AI Employee")), onSome: Effect.succeed })),
        Effect.tap(() => requireReader(principal)),
        Effect.map(toWorkflow)
      )

    const list = (principal: Principal, params: {
      page?: number | undefined
      page_size?: number | undefined
      cursor?: string | undefined
      interaction_type?: InteractionType | undefined
      archived: boolean
      q?: string | undefined
    }) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const limit = Math.min(params.page_size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        const fromCursor = params.cursor === undefined ? undefined : decodeCursor(params.cursor)
        if (params.cursor !== undefined && fromCursor === undefined) {
          return yield* unprocessable("INVALID_CURSOR", "cursor is not one this API returned")
        }
        const offset = fromCursor ?? ((params.page ?? 1) - 1) * limit
        const { rows, total } = yield* repo.list(principal, {
          offset,
          limit,
          archived: params.archived,
          interactionType: params.interaction_type,
          q: params.q
        })
        const hasMore = offset + rows.length < total
        return {
          items: rows.map(toWorkflow),
          total,
          page: Math.floor(offset / limit) + 1,
          page_size: limit,
          has_more: hasMore,
          next_cursor: hasMore ? encodeCursor(offset + limit) : null
        }
      })

    /** A save: the given fields change; a DAG in the request writes a new draft version. */
    const save = (principal: Principal, id: WorkflowId, request: PatchWorkflowRequest) =>
      Effect.gen(function*() {
        yield* visible(principal, id)
        yield* requireBuilder(principal)
        const row = yield* sql.withTransaction(Effect.gen(function*() {
          const current = yield* repo.lock(principal, id)
          if (Option.isNone(current)) return yield* Effect.fail(notFound("AI Employee"))
          yield* requireEditable(current.value)
          const changes: WorkflowChanges = {
            name: request.name,
            description: request.description,
            interaction_type: request.interaction_type,
            icon: request.icon,
            category: categoryChange(request.category),
            knowledge_base_ids: request.knowledge_base_ids,
            public_app: request.public_app
          }
          if (request.dag_definition === undefined) return yield* repo.update(principal, id, changes)
          const number = current.value.latest_version + 1
          yield* versions.insert(principal, id, {
            number,
            dag_definition: request.dag_definition,
            saved_by: principal.userId
          })
          return yield* repo.update(principal, id, {
            ...changes,
            dag_definition: request.dag_definition,
            latest_version: number
          })
        })).pipe(Effect.catchTag("SqlError", Effect.die))
        return yield* withWarnings(principal, row)
      })

    const archive = (principal: Principal, id: WorkflowId) =>
      Effect.gen(function*() {
        yield* visible(principal, id)
        yield* requireBuilder(principal)
        yield* repo.setArchived(principal, id, true)
      })

    const restore = (principal: Principal, id: WorkflowId) =>
      Effect.gen(function*() {
        const row = yield* repo.get(principal, id)
        if (Option.isNone(row) || row.value.archived_at === null) return yield* notFound("Archived AI Employee")
        yield* requireBuilder(principal)
        const restored = yield* repo.setArchived(principal, id, false)
        return yield* Option.match(restored, {
          onNone: () => Effect.fail(notFound("Archived AI Employee")),
          onSome: (r) => Effect.succeed(toWorkflow(r))
        })
      })

    const getConfig = (principal: Principal, id: WorkflowId) => visible(principal, id).pipe(Effect.tap(() => requireReader(principal)), Effect.map(configOf))

    const writeConfig = (principal: Principal, id: WorkflowId, next: (current: WorkflowConfig) => WorkflowConfig) =>
      Effect.gen(function*() {
        yield* visible(principal, id)
        yield* requireBuilder(principal)
        return yield* sql.withTransaction(Effect.gen(function*() {
          const current = yield* repo.lock(principal, id)
          if (Option.isNone(current)) return yield* Effect.fail(notFound("AI Employee"))
          yield* requireEditable(current.value)
          const row = yield* repo.update(principal, id, { config: next(configOf(current.value)) })
          return configOf(row)
        })).pipe(Effect.catchTag("SqlError", Effect.die))
      })

    const drop = <A extends object>(a: A) => Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Partial<WorkflowConfig>

    /** PUT replaces the configuration: fields left out take their defaults. */
    const putConfig = (principal: Principal, id: WorkflowId, body: Partial<Record<keyof WorkflowConfig, unknown>>) =>
      writeConfig(principal, id, () => ({ ...defaultWorkflowConfig, ...drop(body) }))

    /** Merges only the LLM fields given; the chat-UX fields stay as they are. */
    const patchLlmConfig = (principal: Principal, id: WorkflowId, body: Partial<Record<keyof WorkflowConfig, unknown>>) =>
      writeConfig(principal, id, (current) => ({ ...current, ...drop(body) }))

    const clone = (principal: Principal, id: WorkflowId, name: string | undefined) =>
      Effect.gen(function*() {
        const source = yield* visible(principal, id)
        yield* requireBuilder(principal)
        const row = yield* insertNew(principal, {
          name: name ?? `${source.name} (Copy)`,
          description: source.description,
          interaction_type: source.interaction_type,
          icon: source.icon,
          category: source.category,
          dag_definition: source.dag_definition,
          config: configOf(source),
          knowledge_base_ids: source.knowledge_base_ids,
          legacy_steps: source.legacy_steps
        })
        return yield* withWarnings(principal, row)
      })

    const templates = (principal: Principal) => requireReader(principal).pipe(Effect.as({ items: builtInTemplates }))

    const fromTemplate = (principal: Principal, templateId: string) =>
      Effect.gen(function*() {
        const template = builtInTemplates.find((t) => t.id === templateId)
        if (template === undefined) return yield* notFound("Template")
        yield* requireBuilder(principal)
        const row = yield* insertNew(principal, {
          name: template.name,
          description: template.description,
          interaction_type: template.interaction_type,
          icon: null,
          category: template.category,
          dag_definition: structuredClone(template.dag_definition),
          config: defaultWorkflowConfig,
          knowledge_base_ids: [],
          // Templates keep running as they were made, retired presets included.
          legacy_steps: retiredPresetSteps(template.dag_definition)
        })
        return yield* withWarnings(principal, row)
      })

    /**
     * Shares a published AI Employee into another workspace: the copy has its own history
     * (its version 1 is the source's active version) and cannot be edited there.
     */
    const share = (principal: Principal, id: WorkflowId, target: TenantId) =>
      Effect.gen(function*() {
        const source = yield* visible(principal, id)
        if (principal.role !== "env_admin" && principal.role !== "system_admin") {
          return yield* forbidden("Sharing an AI Employee needs env_admin or system_admin")
        }
        if (target === principal.tenantId) return yield* unprocessable("SAME_WORKSPACE", "Choose another workspace")
        if (!(yield* people.administers(principal, target))) return yield* notFound("Workspace")
        if (source.active_version === null) return yield* conflict("NOT_PUBLISHED", "Publish the AI Employee before sharing it")
        const active = yield* versions.get(principal, id, source.active_version).pipe(
          Effect.orDie,
          Effect.flatMap(Effect.orDieWith(() => "active version vanished"))
        )
        const scope = { tenantId: target }
        const row = yield* sql.withTransaction(Effect.gen(function*() {
          const copy = yield* repo.insert(scope, {
            id: randomUUID(),
            name: source.name,
            description: source.description,
            interaction_type: source.interaction_type,
            icon: source.icon,
            category: source.category,
            dag_definition: active.dag_definition,
            config: active.config_snapshot ?? configOf(source),
            knowledge_base_ids: [],
            legacy_steps: source.legacy_steps,
            latest_version: 1,
            active_version: 1,
            status: "published",
            adopted_at: new Date(),
            adopted_from_workflow_id: source.id,
            created_by: principal.userId
          })
          yield* versions.insert(scope, copy.id, {
            number: 1,
            dag_definition: active.dag_definition,
            saved_by: principal.userId,
            config_snapshot: active.config_snapshot,
            exposed_outputs: active.exposed_outputs,
            knowledge_base_snapshot: active.knowledge_base_snapshot,
            published_at: new Date(),
            published_by: principal.userId,
            active: true
          })
          return copy
        })).pipe(Effect.orDie)
        return toWorkflow(row)
      })

    return traced("Workflows", {
      visible,
      create,
      get,
      list,
      save,
      archive,
      restore,
      getConfig,
      putConfig,
      patchLlmConfig,
      clone,
      templates,
      fromTemplate,
      share
    })
  })
}) {}

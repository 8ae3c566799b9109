import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { traced } from "../../platform/Traced.js"
import { type AgentConfig, AgentRunner } from "../../runtime/agents/AgentRunner.js"
import { type AgentType, agentTypeContracts, AgentTypes, agentTypeVersions, lookupAgentType } from "../../runtime/agents/Catalog.js"
import { agentPresets, presetProblem } from "../../runtime/agents/Presets.js"
import { checkJsonSchema } from "../../runtime/dag/JsonSchema.js"
import { requireBuilder, requireReader } from "../../schemas/Authorization.js"
import { notFound, Unprocessable, unprocessable } from "../../schemas/Errors.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOf } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import type { WorkflowConfig } from "../../schemas/Workflow.js"
import { defaultWorkflowConfig } from "../../schemas/Workflow.js"
import { AiEmployees } from "../ports/AiEmployees.js"
import { AgentsRepo, type DefinitionRow, toExecution } from "./AgentsRepo.js"
import { FilesRepo } from "./FilesRepo.js"

const isAgentType = (t: string): t is AgentType => (AgentTypes as ReadonlyArray<string>).includes(t)

/** The agent-type catalog, agent definitions and one-off test executions. */
export class Agents extends Effect.Service<Agents>()("Agents", {
  dependencies: [AgentsRepo.Default, FilesRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* AgentsRepo
    const runner = yield* AgentRunner
    const workflows = yield* AiEmployees
    const files = yield* FilesRepo

    const types = (principal: Principal) =>
      requireReader(principal).pipe(Effect.as({
        items: AgentTypes.map((type) => {
          const versions = agentTypeVersions.filter((v) => v.type === type)
          const contract = agentTypeContracts[type]
          return {
            type,
            live_version: versions.filter((v) => v.status === "live").at(-1)?.version ?? null,
            versions: versions.map((v) => ({ version: v.version, status: v.status })),
            description: contract.description,
            type_config_schema: contract.typeConfigSchema,
            input_schema: contract.inputSchema,
            output_schema: contract.outputSchema
          }
        })
      }))

    const typeVersion = (principal: Principal, type: string, version: string) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const found = lookupAgentType(type, version)
        if (found === undefined) return yield* notFound("Agent type version")
        const contract = agentTypeContracts[found.type]
        return {
          type: found.type,
          version: found.version,
          status: found.status,
          description: contract.description,
          type_config_schema: contract.typeConfigSchema,
          input_schema: contract.inputSchema,
          output_schema: contract.outputSchema
        }
      })

    const presets = (principal: Principal) =>
      requireReader(principal).pipe(Effect.as({
        items: agentPresets.map((p) => ({
          id: p.id,
          name: p.name,
          agent_type: p.agent_type,
          type_version: p.type_version,
          offered: p.offered,
          description: p.description,
          system_prompt_template: p.system_prompt_template ?? null,
          type_config: p.type_config ?? {}
        }))
      }))

    /** A preset named on a step: it must exist, fit the type, and be offered unless the step already had it. */
    const checkPreset = (preset: string | undefined, agentType: string, existing: boolean) => {
      const problem = preset === undefined ? undefined : presetProblem(preset, agentType, existing)
      return problem === undefined ? Effect.void : Effect.fail(unprocessable(problem.code, problem.message))
    }

    /** A definition's type must exist and its type_config must fit the type. */
    const checkDefinition = (
      d: { agent_type: string; type_config: Record<string, unknown>; preset?: string | undefined },
      existingPreset: string | null = null
    ) =>
      Effect.gen(function*() {
        if (!isAgentType(d.agent_type)) {
          return yield* unprocessable("AGENT_TYPE_UNKNOWN", `Unknown agent type '${d.agent_type}'`)
        }
        yield* checkPreset(d.preset, d.agent_type, d.preset !== undefined && d.preset === existingPreset)
        const problems = checkJsonSchema(agentTypeContracts[d.agent_type].typeConfigSchema, d.type_config)
        if (problems.length > 0) {
          return yield* unprocessable("TYPE_CONFIG_INVALID", `type_config does not fit ${d.agent_type}`, problems)
        }
      })

    const view = (row: DefinitionRow) => row

    const createDefinition = (principal: Principal, d: {
      name: string
      agent_type: string
      type_version: string
      preset?: string | undefined
      system_prompt_template: string
      input_schema?: Record<string, unknown> | null | undefined
      llm_config: Record<string, unknown>
      type_config: Record<string, unknown>
    }) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        yield* checkDefinition(d)
        return view(yield* repo.insertDefinition(principal, randomUUID(), { ...d, preset: d.preset ?? null, input_schema: d.input_schema ?? null }))
      })

    const definition = (principal: Principal, id: string) =>
      repo.getDefinition(principal, id).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("Agent definition")), onSome: Effect.succeed })),
        Effect.tap(() => requireReader(principal))
      )

    const replaceDefinition = (principal: Principal, id: string, d: Parameters<typeof createDefinition>[1]) =>
      Effect.gen(function*() {
        const current = yield* definition(principal, id)
        yield* requireBuilder(principal)
        yield* checkDefinition(d, current.preset)
        const row = yield* repo.replaceDefinition(principal, id, { ...d, preset: d.preset ?? null, input_schema: d.input_schema ?? null })
        return yield* Option.match(row, { onNone: () => Effect.fail(notFound("Agent definition")), onSome: (r) => Effect.succeed(view(r)) })
      })

    const deleteDefinition = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        yield* definition(principal, id)
        yield* requireBuilder(principal)
        yield* repo.deleteDefinition(principal, id)
      })

    const listDefinitions = (principal: Principal, params: PageParams) =>
      requireReader(principal).pipe(
        Effect.zipRight(repo.listDefinitions(principal, params)),
        Effect.map(({ rows, total }) => pageOf(params, rows.map(view), total))
      )

    /** Runs the agent once, unsaved, through the same runner as workflow agent nodes. */
    const testExecute = (principal: Principal, body: {
      agent_config: AgentConfig & { input_schema?: Record<string, unknown> | undefined }
      inputs: Record<string, unknown>
      action_ids?: ReadonlyArray<string> | undefined
      knowledge_bases?: ReadonlyArray<string> | undefined
      is_dry_run: boolean
      workflow_id?: WorkflowId | undefined
    }) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const { agent_type: type, preset, type_version: version } = body.agent_config
        if (!isAgentType(type)) return yield* unprocessable("AGENT_TYPE_UNKNOWN", `Unknown agent type '${type}'`)
        const entry = lookupAgentType(type, version)
        if (entry === undefined || entry.status === "deleted" || entry.status === "broken") {
          const problem = entry?.status ?? "unknown"
          return yield* new Unprocessable({
            code: "AGENT_TYPE_VERSION_INVALID",
            message: `Agent type ${type} ${version} is ${problem} and cannot run`,
            issues: [{ agent_type: type, type_version: version, problem }]
          })
        }
        if (body.agent_config.input_schema !== undefined) {
          const problems = checkJsonSchema(body.agent_config.input_schema, body.inputs)
          if (problems.length > 0) return yield* unprocessable("INVALID_INPUT", "inputs do not match input_schema", problems)
        }
        let config: WorkflowConfig = defaultWorkflowConfig
        let legacy: ReadonlyArray<string> = []
        if (body.workflow_id !== undefined) {
          const workflow = yield* workflows.visible(principal, body.workflow_id)
          config = workflow.config
          legacy = workflow.legacy_steps
        }
        // A retired preset may be tried only for an AI Employee that already has a step using it.
        yield* checkPreset(preset, type, legacy.some((step) => step.endsWith(`:${preset}`)))
        const id = randomUUID()
        const agentConfig = {
          ...body.agent_config,
          ...(body.action_ids !== undefined ? { action_ids: body.action_ids } : {}),
          ...(body.knowledge_bases !== undefined ? { knowledge_base_ids: body.knowledge_bases } : {})
        }
        yield* repo.startExecution(principal, {
          id,
          agent_type: agentConfig.agent_type,
          agent_config: agentConfig,
          inputs: body.inputs,
          is_dry_run: body.is_dry_run,
          workflow_id: body.workflow_id ?? null
        })
        const result = yield* runner.run({
          tenantId: principal.tenantId,
          agentConfig,
          context: { workflow_input: body.inputs, nodes: {}, run: { id, trigger_type: "ui" } },
          config,
          isDryRun: body.is_dry_run,
          emitToken: () => Effect.void
        }).pipe(Effect.either)
        const row = result._tag === "Right"
          ? yield* repo.finishExecution(id, {
            status: "completed",
            output: result.right.output,
            tokens: Object.values(result.right.usage).reduce((n, u) => n + u.total_tokens, 0),
            breakdown: result.right.usage,
            error: null
          })
          : yield* repo.finishExecution(id, { status: "failed", output: null, tokens: 0, breakdown: {}, error: result.left.message })
        return toExecution(row)
      })

    const executions = (principal: Principal, params: PageParams) =>
      requireReader(principal).pipe(
        Effect.zipRight(repo.listExecutions(principal, params)),
        Effect.map(({ rows, total }) => pageOf(params, rows.map(toExecution), total))
      )

    const execution = (principal: Principal, id: string) =>
      repo.getExecution(principal, id).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("Test execution")), onSome: (r) => Effect.succeed(toExecution(r)) })),
        Effect.tap(() => requireReader(principal))
      )

    const file = (principal: Principal, id: string) =>
      requireReader(principal).pipe(
        Effect.zipRight(files.get(principal.tenantId, id)),
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("File")), onSome: Effect.succeed }))
      )

    return traced("Agents", {
      types,
      typeVersion,
      presets,
      file,
      createDefinition,
      definition,
      replaceDefinition,
      deleteDefinition,
      listDefinitions,
      testExecute,
      executions,
      execution
    })
  })
}) {}

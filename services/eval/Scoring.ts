import { Data, Effect, Either, Option } from "effect"
import { derivedUuidOf } from "../../platform/TimedId.js"
import { AgentRunner } from "../../runtime/agents/AgentRunner.js"
import { checkJsonSchema } from "../../runtime/dag/JsonSchema.js"
import { ChatModel, type TokenUsage } from "../../runtime/models/ChatModel.js"
import { ModelRegistry } from "../../runtime/models/ModelRegistry.js"
import { RunModule } from "../../runtime/run/RunModule.js"
import { isRecord } from "../../schemas/Records.js"
import { defaultWorkflowConfig, type WorkflowConfig } from "../../schemas/Workflow.js"
import type { ConfigRow } from "./Configs.js"
import { agentNodeOf } from "./Configs.js"
import type { RubricRow } from "./Rubrics.js"

export class RowFailure extends Data.TaggedError("RowFailure")<{ readonly message: string; readonly workflowRunId?: string | undefined }> {}

/** What one eval run scores against: its config, rubric and the pinned version of the AI Employee. */
export interface ScoringContext {
  readonly evalRunId: string
  readonly tenantId: string
  readonly workflowId: string
  readonly createdBy: string | null
  readonly config: ConfigRow
  readonly rubric: RubricRow
  readonly version: { readonly number: number; readonly name: string; readonly dag: unknown; readonly config: WorkflowConfig }
}

export interface RowToScore {
  readonly resultId: string
  readonly rowId: string
  readonly inputs: Record<string, unknown>
  readonly expectedOutput: Record<string, unknown> | null
  readonly simulatorInstructions: string | null
}

export interface RowScore {
  readonly actualOutput: unknown
  readonly transcript: ReadonlyArray<{ readonly role: string; readonly content: string }> | null
  readonly rubricScores: Record<string, unknown>
  readonly tokenUsage: Record<string, TokenUsage>
  readonly workflowRunId: string | null
}

type Usage = Record<string, TokenUsage>
const addUsage = (into: Usage, more: Readonly<Record<string, TokenUsage>>) => {
  for (const [model, u] of Object.entries(more)) {
    const t = into[model] ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }
    into[model] = {
      prompt_tokens: t.prompt_tokens + u.prompt_tokens,
      completion_tokens: t.completion_tokens + u.completion_tokens,
      total_tokens: t.total_tokens + u.total_tokens
    }
  }
}

const RUN_TIMEOUT_MS = 10 * 60_000
const DEFAULT_TURNS = 3
const SIMULATION_DONE = "[DONE]"

const replyText = (output: unknown) => (isRecord(output) && typeof output.text === "string" ? output.text : JSON.stringify(output ?? null))

export const asWorkflowConfig = (config: unknown): WorkflowConfig => ({ ...defaultWorkflowConfig, ...(isRecord(config) ? config : {}) })

/**
 * Scores one dataset row: runs the target (a real run of the pinned version with trigger_type
 * eval, or the one agent node alone through the shared agent runner, or a conversation with a
 * simulated user), then asks the judge for the rubric's scores as JSON checked against its
 * schema (one retry, then the row fails).
 */
export const makeScoring = Effect.gen(function*() {
  const modules = yield* RunModule
  const agents = yield* AgentRunner
  const registry = yield* ModelRegistry
  const model = yield* ChatModel

  const pickModel = (ctx: ScoringContext, requested: string | null) =>
    Effect.flatMap(
      registry.choose(ctx.tenantId, ctx.version.config, requested ?? undefined),
      (chosen) =>
        chosen === undefined ? Effect.fail(new RowFailure({ message: "No model is available for the judge or the simulator" })) : Effect.succeed(chosen)
    )

  /** A real run of the pinned version; its id derives from the eval run, row and turn, so a row scored again finds it. */
  const runWorkflow = (ctx: ScoringContext, row: RowToScore, input: Record<string, unknown>, turn: number) =>
    Effect.gen(function*() {
      // The eval run's time: its scored runs share its day's partition of the run tables.
      const id = derivedUuidOf(ctx.evalRunId, `eval:${ctx.evalRunId}:${row.rowId}:${turn}`)
      const created = yield* modules.create({
        id,
        tenantId: ctx.tenantId,
        workflowId: ctx.workflowId,
        version: { number: ctx.version.number, name: ctx.version.name },
        triggerType: "eval",
        createdBy: ctx.createdBy,
        isDryRun: false,
        input,
        ...(ctx.config.search_config !== null
          ? { searchOverrides: { top_k: ctx.config.search_config.search_top_k, min_score: ctx.config.search_config.search_min_score } }
          : {})
      }).pipe(Effect.mapError((e) => new RowFailure({ message: `The run could not start: ${e.message}` })))
      if (created.status === "pending") yield* modules.launch(id)
      const until = Date.now() + RUN_TIMEOUT_MS
      for (;;) {
        const status = (yield* modules.statuses([id])).get(id)
        if (status === "completed" || status === "failed" || status === "cancelled") break
        if (Date.now() > until) return yield* new RowFailure({ message: "The run did not end within 10 minutes", workflowRunId: id })
        yield* Effect.sleep("25 millis")
      }
      const outcome = Option.getOrUndefined(yield* modules.outcome(id))
      if (outcome === undefined || outcome.status !== "completed") {
        return yield* new RowFailure({ message: `The run ${outcome?.status ?? "vanished"}: ${outcome?.error ?? ""}`.trim(), workflowRunId: id })
      }
      const output = Object.keys(outcome.namedOutputs).length > 0 ? outcome.namedOutputs : outcome.completedSteps.at(-1)?.output ?? null
      return {
        id,
        output,
        usage: outcome.usage,
        reply: typeof outcome.namedOutputs.response === "string" ? outcome.namedOutputs.response : replyText(outcome.completedSteps.at(-1)?.output)
      }
    })

  const runAgent = (ctx: ScoringContext, row: RowToScore) =>
    Effect.gen(function*() {
      const node = agentNodeOf(ctx.version.dag, ctx.config.target_node_id ?? "")
      if (node === undefined) return yield* new RowFailure({ message: `Version ${ctx.version.number} has no agent node '${ctx.config.target_node_id}'` })
      const base = node.agent_config as Record<string, unknown>
      const search = ctx.config.search_config
      const typeConfig = {
        ...(isRecord(base.type_config) ? base.type_config : {}),
        ...(search?.search_top_k !== undefined ? { top_k: search.search_top_k } : {}),
        ...(search?.search_min_score !== undefined ? { min_score: search.search_min_score } : {})
      }
      const result = yield* agents.run({
        tenantId: ctx.tenantId,
        agentConfig: { ...base, type_config: typeConfig } as never,
        context: { workflow_input: row.inputs, nodes: {}, run: { id: row.resultId, trigger_type: "eval" } },
        config: ctx.version.config,
        isDryRun: false,
        userId: ctx.createdBy,
        emitToken: () => Effect.void
      }).pipe(Effect.mapError((e) => new RowFailure({ message: `The agent failed: ${e.message}` })))
      return { output: result.output, usage: result.usage }
    })

  /** A conversation: the simulator speaks as the user, the AI Employee answers each turn as in chat. */
  const simulate = (ctx: ScoringContext, row: RowToScore, usage: Usage) =>
    Effect.gen(function*() {
      const simulator = yield* pickModel(ctx, ctx.config.simulator_model)
      const persona = [ctx.config.simulator_instructions, row.simulatorInstructions].filter((s): s is string => s !== null && s !== "").join("\n")
      const transcript: Array<{ role: "user" | "assistant"; content: string }> = []
      let lastRun: string | null = null
      for (let turn = 0; turn < (ctx.config.max_turns ?? DEFAULT_TURNS); turn++) {
        const said = yield* model.complete({
          model: simulator.model,
          provider: simulator.provider,
          messages: [
            {
              role: "system",
              content: `You play a user talking to an AI assistant. ${persona}\nFacts about you: ${JSON.stringify(row.inputs)}\n` +
                `Write only your next message. When your goal is reached, reply ${SIMULATION_DONE}.`
            },
            ...transcript.map((m) => ({ role: m.role === "user" ? "assistant" as const : "user" as const, content: m.content }))
          ]
        }).pipe(Effect.mapError((e) => new RowFailure({ message: `The simulated user failed: ${e.message}` })))
        addUsage(usage, { [said.model]: said.usage })
        const message = said.text.trim()
        if (message === "" || message === SIMULATION_DONE) break
        const history = [...transcript]
        transcript.push({ role: "user", content: message })
        const answer = yield* runWorkflow(ctx, row, { ...row.inputs, chat: { message, history } }, turn)
        addUsage(usage, answer.usage)
        lastRun = answer.id
        transcript.push({ role: "assistant", content: answer.reply })
      }
      return { transcript, lastRun, output: transcript.filter((m) => m.role === "assistant").at(-1)?.content ?? null }
    })

  const judge = (ctx: ScoringContext, row: RowToScore, subject: Record<string, unknown>, usage: Usage) =>
    Effect.gen(function*() {
      const chosen = yield* pickModel(ctx, ctx.config.judge_model)
      const messages: Array<{ role: "system" | "user" | "assistant"; content: string }> = [
        {
          role: "system",
          content: `${ctx.rubric.rubric_instructions}\n\nScore the answer below. Reply with a JSON object that matches this schema and nothing else:\n${
            JSON.stringify(ctx.rubric.rubric_schema)
          }`
        },
        { role: "user", content: JSON.stringify({ inputs: row.inputs, expected_output: row.expectedOutput, ...subject }) }
      ]
      for (let attempt = 0; attempt < 2; attempt++) {
        const reply = yield* model.complete({
          model: chosen.model,
          provider: chosen.provider,
          messages,
          jsonSchema: { name: "rubric_scores", schema: ctx.rubric.rubric_schema }
        }).pipe(Effect.mapError((e) => new RowFailure({ message: `The judge failed: ${e.message}` })))
        addUsage(usage, { [reply.model]: reply.usage })
        const parsed = Either.getOrUndefined(Either.try(() => JSON.parse(reply.text) as unknown))
        const problems = parsed === undefined ? [{ path: "", message: "not JSON" }] : checkJsonSchema(ctx.rubric.rubric_schema, parsed)
        if (problems.length === 0 && isRecord(parsed)) return parsed
        messages.push(
          { role: "assistant", content: reply.text },
          {
            role: "user",
            content: `That does not match the schema (${problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")}). Answer again with JSON only.`
          }
        )
      }
      return yield* new RowFailure({ message: "The judge's scores did not match the rubric schema twice" })
    })

  const score = (ctx: ScoringContext, row: RowToScore): Effect.Effect<RowScore, RowFailure> =>
    Effect.gen(function*() {
      const usage: Usage = {}
      if (ctx.config.simulator_model !== null || ctx.config.simulator_instructions !== null) {
        const conversation = yield* simulate(ctx, row, usage)
        const scores = yield* judge(ctx, row, { transcript: conversation.transcript }, usage)
        return {
          actualOutput: conversation.output,
          transcript: conversation.transcript,
          rubricScores: scores,
          tokenUsage: usage,
          workflowRunId: conversation.lastRun
        }
      }
      if (ctx.config.target_type === "agent") {
        const result = yield* runAgent(ctx, row)
        addUsage(usage, result.usage)
        const scores = yield* judge(ctx, row, { actual_output: result.output }, usage)
        return { actualOutput: result.output, transcript: null, rubricScores: scores, tokenUsage: usage, workflowRunId: null }
      }
      const run = yield* runWorkflow(ctx, row, row.inputs, 0)
      addUsage(usage, run.usage)
      const scores = yield* judge(ctx, row, { actual_output: run.output }, usage).pipe(
        Effect.mapError((e) => new RowFailure({ message: e.message, workflowRunId: run.id }))
      )
      return { actualOutput: run.output, transcript: null, rubricScores: scores, tokenUsage: usage, workflowRunId: run.id }
    }).pipe(Effect.withSpan("Eval.scoreRow", { attributes: { "eval.run_id": ctx.evalRunId, "eval.row_id": row.rowId } }))

  /** Why no row of the run can be scored (its target node gone, no model for the judge), if so. */
  const unusable = (ctx: ScoringContext) =>
    Effect.gen(function*() {
      if (ctx.config.target_type === "agent" && agentNodeOf(ctx.version.dag, ctx.config.target_node_id ?? "") === undefined) {
        return `Version ${ctx.version.number} has no agent node '${ctx.config.target_node_id}' to score`
      }
      if ((yield* registry.choose(ctx.tenantId, ctx.version.config, ctx.config.judge_model ?? undefined)) === undefined) {
        return "No model is available to the judge (the AI Employee's model settings allow none)"
      }
      return undefined
    })

  return { score, unusable }
})

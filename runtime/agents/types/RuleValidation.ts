import { Effect, Either, Schema } from "effect"
import { WorkerPool } from "../../../platform/workers/WorkerPool.js"
import { Condition } from "../../../schemas/Dag.js"
import { asRecord } from "../../../schemas/Records.js"
import { holds } from "../../dag/Conditions.js"
import { resolvePath } from "../../dag/Context.js"
import { NodeFailure } from "../../nodes/NodeType.js"
import { AgentKit, type AgentTypeRun, instructions, userTurn } from "../AgentKit.js"
import { GeneratedFiles, ruleReport, type RuleRow, XLSX_CONTENT_TYPE } from "../RuleReport.js"

const Rule = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1)),
  description: Schema.String,
  /** A rule with a condition is checked on the run context, without the model. */
  condition: Schema.optional(Condition)
})
const Rules = Schema.Array(Rule).pipe(Schema.minItems(1))
type Rule = typeof Rule.Type

const show = (u: unknown) => (u === undefined ? "nothing" : JSON.stringify(u))

/**
 * rule_validation: every rule in `type_config.rules` gets a verdict and a reason. Rules with a
 * `condition` are evaluated on the run context; the others are judged by the model in one
 * schema-checked call (every rule answered exactly once, one corrective retry). With
 * `type_config.report: true` an Excel report is stored and its id returned.
 * Output `{passed, results: [{rule_id, passed, reason}], report_file_id?}`.
 */
export const ruleValidation = Effect.gen(function*() {
  const kit = yield* AgentKit
  const files = yield* GeneratedFiles
  const pool = yield* WorkerPool

  const judge = (call: Parameters<AgentTypeRun>[0], rules: ReadonlyArray<Rule>) =>
    Effect.gen(function*() {
      if (rules.length === 0) return { verdicts: new Map<string, { passed: boolean; reason: string }>(), usage: {} }
      const ids = rules.map((r) => r.id)
      const schema = {
        type: "object",
        additionalProperties: false,
        required: ["results"],
        properties: {
          results: {
            type: "array",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["rule_id", "passed", "reason"],
              properties: { rule_id: { type: "string", enum: ids }, passed: { type: "boolean" }, reason: { type: "string" } }
            }
          }
        }
      }
      const everyRuleOnce = (value: unknown) => {
        const answered = (asRecord(value).results as Array<{ rule_id: string }> | undefined ?? []).map((r) => r.rule_id)
        return ids.flatMap((id) => {
          const n = answered.filter((a) => a === id).length
          return n === 1 ? [] : [{ path: "/results", message: `rule '${id}' is answered ${n} times, expected once` }]
        })
      }
      const list = rules.map((r) => `- ${r.id}: ${r.description}`).join("\n")
      const { usage, value } = yield* kit.completeJson(
        call,
        [
          {
            role: "system",
            content: `${instructions(call)}\n\nCheck the input against each rule and give every rule a verdict with a short reason.\nRules:\n${list}`
          },
          { role: "user", content: userTurn(call) }
        ],
        { name: "rule_validation", schema },
        everyRuleOnce
      )
      const results = asRecord(value).results as ReadonlyArray<{ rule_id: string; passed: boolean; reason: string }>
      return { verdicts: new Map(results.map((r) => [r.rule_id, { passed: r.passed, reason: r.reason }])), usage }
    })

  const run: AgentTypeRun = (call) =>
    Effect.gen(function*() {
      const decoded = Schema.decodeUnknownEither(Rules)(call.agentConfig.type_config?.rules)
      if (Either.isLeft(decoded)) {
        return yield* new NodeFailure({ kind: "configuration", message: "rule_validation needs type_config.rules: [{id, description, condition?}, ...]" })
      }
      const rules = decoded.right
      const ids = rules.map((r) => r.id)
      const repeated = ids.filter((id, i) => ids.indexOf(id) !== i)
      if (repeated.length > 0) {
        return yield* new NodeFailure({ kind: "configuration", message: `Rule ids must be unique: ${[...new Set(repeated)].join(", ")}` })
      }
      const { usage, verdicts } = yield* judge(call, rules.filter((r) => r.condition === undefined))
      const rows: Array<RuleRow> = rules.map((rule) => {
        if (rule.condition !== undefined) {
          const ok = holds(rule.condition, call.context)
          const actual = resolvePath(call.context, rule.condition.ref)
          return {
            rule_id: rule.id,
            description: rule.description,
            passed: ok,
            reason: `${rule.condition.ref} ${rule.condition.op} ${show(rule.condition.value)}: ${ok ? "holds" : "does not hold"} (value: ${show(actual)})`,
            checked_by: "condition"
          }
        }
        const verdict = verdicts.get(rule.id)!
        return { rule_id: rule.id, description: rule.description, ...verdict, checked_by: "model" }
      })
      const passed = rows.every((r) => r.passed)
      const results = rows.map(({ passed, reason, rule_id }) => ({ rule_id, passed, reason }))
      if (call.agentConfig.type_config?.report !== true) return { output: { passed, results }, usage }
      const title = typeof call.agentConfig.type_config.report_title === "string" ? call.agentConfig.type_config.report_title : "Rule validation"
      const bytes = yield* ruleReport(pool, call.tenantId, title, passed, rows).pipe(
        Effect.mapError((e) => new NodeFailure({ kind: "dependency", code: e.code, message: `The rule_validation report could not be written: ${e.message}` }))
      )
      const reportFileId = yield* files.save({
        tenantId: call.tenantId,
        filename: `${title.replace(/[^\w .-]/g, "_").slice(0, 80)}.xlsx`,
        contentType: XLSX_CONTENT_TYPE,
        bytes,
        runId: call.context.run.id
      })
      return { output: { passed, results, report_file_id: reportFileId }, usage }
    })
  return run
})

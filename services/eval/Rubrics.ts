import { SqlClient } from "@effect/sql"
import { Effect, Either, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, JsonArrayOf, JsonObject, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { isValidJsonSchema } from "../../runtime/dag/JsonSchema.js"
import { ChatModel } from "../../runtime/models/ChatModel.js"
import { ModelRegistry } from "../../runtime/models/ModelRegistry.js"
import { requireBuilder, requireReader } from "../../schemas/Authorization.js"
import { conflict, notFound, unprocessable } from "../../schemas/Errors.js"
import type { RubricGenerateRequest, RubricRequest, VariableCatalog } from "../../schemas/Eval.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { isRecord } from "../../schemas/Records.js"
import { defaultWorkflowConfig } from "../../schemas/Workflow.js"
import { AiEmployees } from "../ports/AiEmployees.js"

const RubricRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.String,
  workflow_id: Schema.UUID,
  name: Schema.String,
  rubric_schema: JsonObject,
  rubric_instructions: Schema.String,
  variable_catalog: Schema.NullOr(JsonArrayOf<typeof VariableCatalog.Type[number]>()),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type RubricRow = typeof RubricRow.Type
export const rubricRows = decodeRows("eval_rubrics", RubricRow)

const toRubric = ({ tenant_id: _, ...row }: RubricRow) => row

const SCORE_TYPES = ["number", "integer", "boolean"]

/** The score fields of a rubric schema: an object schema whose properties are numbers, integers or booleans. */
export const scoreFields = (schema: Record<string, unknown>): Either.Either<ReadonlyArray<{ name: string; type: string }>, string> => {
  if (!isValidJsonSchema(schema)) return Either.left("rubric_schema is not a valid JSON Schema")
  if (schema.type !== "object" || !isRecord(schema.properties) || Object.keys(schema.properties).length === 0) {
    return Either.left("rubric_schema must be an object schema with at least one score field in properties")
  }
  const fields = Object.entries(schema.properties).map(([name, p]) => ({ name, type: isRecord(p) ? String(p.type) : "" }))
  const bad = fields.filter((f) => !SCORE_TYPES.includes(f.type))
  return bad.length > 0
    ? Either.left(`Score fields are numbers, integers or booleans: ${bad.map((f) => f.name).join(", ")} ${bad.length === 1 ? "is" : "are"} not`)
    : Either.right(fields)
}

const GENERATE_INSTRUCTIONS = `You design evaluation rubrics for AI assistants. Reply with JSON only:
{"name": "...", "rubric_instructions": "how a judge should score one answer", "rubric_schema": {"type": "object", "required": [...], "properties": {"<score>": {"type": "integer", "minimum": 1, "maximum": 5, "description": "..."}}}}
Score fields are integers 1-5 or booleans.`

/** Rubrics: the score fields a judge fills (a JSON Schema) and how it should judge. */
export class Rubrics extends Effect.Service<Rubrics>()("Rubrics", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const aiEmployees = yield* AiEmployees
    const registry = yield* ModelRegistry
    const model = yield* ChatModel

    const find = (principal: Principal, id: string) =>
      sql`SELECT * FROM eval_rubrics WHERE tenant_id = ${principal.tenantId} AND id = ${id}`.pipe(
        rubricRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Rubric")) : Effect.succeed(rows[0]))
      )

    const checked = (principal: Principal, body: typeof RubricRequest.Type) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        yield* aiEmployees.visible(principal, body.workflow_id as WorkflowId)
        const fields = scoreFields(body.rubric_schema)
        if (Either.isLeft(fields)) return yield* unprocessable("RUBRIC_SCHEMA_INVALID", fields.left, [{ path: ["rubric_schema"], message: fields.left }])
      })

    const create = (principal: Principal, body: typeof RubricRequest.Type) =>
      Effect.gen(function*() {
        yield* checked(principal, body)
        const [row] = yield* sql`INSERT INTO eval_rubrics ${
          sql.insert({
            id: randomUUID(),
            tenant_id: principal.tenantId,
            workflow_id: body.workflow_id,
            name: body.name,
            rubric_schema: JSON.stringify(body.rubric_schema),
            rubric_instructions: body.rubric_instructions,
            variable_catalog: body.variable_catalog === undefined ? null : JSON.stringify(body.variable_catalog)
          })
        } RETURNING *`.pipe(rubricRows, Effect.orDie)
        return toRubric(row)
      })

    const replace = (principal: Principal, id: string, body: typeof RubricRequest.Type) =>
      Effect.gen(function*() {
        yield* find(principal, id)
        yield* checked(principal, body)
        const [row] = yield* sql`UPDATE eval_rubrics SET workflow_id = ${body.workflow_id}, name = ${body.name},
          rubric_schema = ${JSON.stringify(body.rubric_schema)}::jsonb, rubric_instructions = ${body.rubric_instructions},
          variable_catalog = ${body.variable_catalog === undefined ? null : JSON.stringify(body.variable_catalog)}::jsonb, updated_at = now()
          WHERE id = ${id} RETURNING *`.pipe(rubricRows, Effect.orDie)
        return toRubric(row)
      })

    const remove = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        yield* find(principal, id)
        const [used] = yield* sql`SELECT name FROM eval_configs WHERE rubric_id = ${id} LIMIT 1`.pipe(
          decodeRows("eval_configs", Schema.Struct({ name: Schema.String }))
        ).pipe(Effect.orDie)
        if (used !== undefined) return yield* conflict("EVAL_RUBRIC_IN_USE", `The eval config '${used.name}' uses this rubric`)
        yield* sql`DELETE FROM eval_rubrics WHERE id = ${id}`.pipe(Effect.orDie)
      })

    /** A draft from the model, checked like a saved rubric, never stored. */
    const generate = (principal: Principal, body: typeof RubricGenerateRequest.Type) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const workflowConfig = body.workflow_id !== undefined ? (yield* aiEmployees.visible(principal, body.workflow_id as WorkflowId)).config : undefined
        const chosen = yield* registry.choose(principal.tenantId, workflowConfig ?? defaultWorkflowConfig, undefined)
        if (chosen === undefined) return yield* unprocessable("EVAL_JUDGE_FAILED", "No model is available to draft a rubric")
        const variables = body.variable_catalog === undefined ? "" : `\nVariables the judge sees: ${JSON.stringify(body.variable_catalog)}`
        const reply = yield* model.complete({
          model: chosen.model,
          provider: chosen.provider,
          messages: [{ role: "system", content: GENERATE_INSTRUCTIONS }, { role: "user", content: `${body.description}${variables}` }]
        }).pipe(Effect.mapError((e) => unprocessable("EVAL_JUDGE_FAILED", `The model could not draft a rubric: ${e.message}`)))
        const draft = Option.getOrUndefined(Either.getRight(Either.try(() => JSON.parse(reply.text.replace(/^```(json)?|```$/g, "").trim()) as unknown)))
        if (!isRecord(draft) || !isRecord(draft.rubric_schema)) return yield* unprocessable("EVAL_JUDGE_FAILED", "The model's draft was not a rubric")
        const fields = scoreFields(draft.rubric_schema)
        if (Either.isLeft(fields)) return yield* unprocessable("EVAL_JUDGE_FAILED", `The model's draft was not usable: ${fields.left}`)
        return {
          name: typeof draft.name === "string" ? draft.name : "Draft rubric",
          rubric_schema: draft.rubric_schema,
          rubric_instructions: typeof draft.rubric_instructions === "string" ? draft.rubric_instructions : body.description,
          variable_catalog: body.variable_catalog ?? null
        }
      })

    return traced("Rubrics", {
      create,
      replace,
      remove,
      generate,
      list: (principal: Principal, workflowId: string | undefined) =>
        Effect.zipRight(
          requireReader(principal),
          sql`SELECT * FROM eval_rubrics WHERE tenant_id = ${principal.tenantId} ${workflowId !== undefined ? sql`AND workflow_id = ${workflowId}` : sql``}
            ORDER BY created_at DESC, id`.pipe(rubricRows, Effect.orDie)
        ).pipe(Effect.map((rows) => ({ items: rows.map(toRubric) }))),
      get: (principal: Principal, id: string) => Effect.zipRight(requireReader(principal), Effect.map(find(principal, id), toRubric)),
      find
    })
  })
}) {}

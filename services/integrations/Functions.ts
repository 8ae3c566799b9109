import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { OutboundGuard } from "../../platform/outbound/OutboundGuard.js"
import { decodeRows, JsonObject, Timestamp } from "../../platform/Rows.js"
import { uuidV7 } from "../../platform/TimedId.js"
import { spanAttributes, traced } from "../../platform/Traced.js"
import { WorkerPool, workerTask } from "../../platform/workers/WorkerPool.js"
import { checkJsonSchema } from "../../runtime/dag/JsonSchema.js"
import { requireBuilder } from "../../schemas/Authorization.js"
import { type BadRequest, badRequest, notFound } from "../../schemas/Errors.js"
import { IntegrationAuth } from "../../schemas/Integration.js"
import type { ExecuteRequest, ExecutionListParams } from "../../schemas/Integration.js"
import { pageOf, pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { FunctionRow } from "./CatalogRepo.js"
import { callHttp, type CallOutcome } from "./HttpFunction.js"
import { InstallSecrets } from "./InstallSecrets.js"
import { OAuthConnections } from "./OAuthConnections.js"
import type * as ScriptTask from "./ScriptTask.js"

/** A function a workspace can call: enabled on an active install. */
const CallableRow = Schema.Struct({
  ...FunctionRow.fields,
  integration_id: Schema.UUID,
  integration_name: Schema.String,
  base_url: Schema.NullOr(Schema.String),
  auth: IntegrationAuth
})
export type CallableRow = typeof CallableRow.Type
const callableRows = decodeRows("catalog_functions", CallableRow)

const ExecutionRow = Schema.Struct({
  id: Schema.UUID,
  integration_id: Schema.UUID,
  function_id: Schema.UUID,
  function_name: Schema.String,
  status: Schema.Literal("success", "error"),
  input: JsonObject,
  output: Schema.Unknown,
  error: Schema.NullOr(Schema.String),
  logs: Schema.NullOr(Schema.String),
  http_status: Schema.NullOr(Schema.Number),
  duration_ms: Schema.Number,
  run_id: Schema.NullOr(Schema.String),
  created_at: Timestamp
})
type ExecutionRow = typeof ExecutionRow.Type
const executionRows = decodeRows("integration_executions", ExecutionRow)

const toExecution = (r: ExecutionRow) => ({
  execution_id: r.id,
  status: r.status,
  ...(r.output !== null ? { output: r.output } : {}),
  duration_ms: r.duration_ms,
  ...(r.error !== null ? { error: r.error } : {}),
  integration_id: r.integration_id,
  function_id: r.function_id,
  function_name: r.function_name,
  input: r.input,
  logs: r.logs,
  http_status: r.http_status,
  run_id: r.run_id,
  created_at: r.created_at
})

const SCRIPT_MEMORY_BYTES = 32 * 1024 * 1024
const SCRIPT_CPU_MS = 2_000
/** Past its CPU limit a script is interrupted by QuickJS itself; this stops its thread if even that fails. */
const SCRIPT_HARD_LIMIT_MS = SCRIPT_CPU_MS + 3_000
const scriptTask = workerTask<typeof ScriptTask, "runScript">(new URL("./ScriptTask.js", import.meta.url), "runScript")

/** Who calls, for credentials (a user's OAuth connection) and the record. */
export interface Caller {
  readonly tenantId: string
  readonly userId: string | null
  readonly runId: string | null
}

/** Integration functions: what a workspace may call, calling them (recorded), and the record. */
export class Functions extends Effect.Service<Functions>()("Functions", {
  dependencies: [InstallSecrets.Default, OAuthConnections.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* InstallSecrets
    const guard = yield* OutboundGuard
    const config = yield* AppConfig
    const workers = yield* WorkerPool
    const oauth = yield* OAuthConnections

    const callableSelect = sql`SELECT f.*, i.id AS integration_id, e.name AS integration_name, e.base_url, e.auth
      FROM tenant_integrations i JOIN catalog_entries e ON e.id = i.catalog_id JOIN catalog_functions f ON f.entry_id = e.id
      WHERE i.status = 'active' AND f.name = ANY(i.enabled_functions)`

    const callable = (tenantId: string) => sql`${callableSelect} AND i.tenant_id = ${tenantId} ORDER BY e.name, f.name`.pipe(callableRows, Effect.orDie)

    const callableByIds = (tenantId: string, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([] as ReadonlyArray<CallableRow>)
        : sql`${callableSelect} AND i.tenant_id = ${tenantId} AND f.id::text IN ${sql.in([...ids])}`.pipe(callableRows, Effect.orDie)

    /** By id, or by `<integration>.<function>` / a function name only one install has. */
    const resolve = (tenantId: string, ref: { function_id?: string | undefined; function_name?: string | undefined }) =>
      Effect.gen(function*() {
        const all = yield* callable(tenantId)
        const found = ref.function_id !== undefined
          ? all.filter((f) => f.id === ref.function_id)
          : all.filter((f) => f.name === ref.function_name || `${f.integration_name}.${f.name}` === ref.function_name)
        if (found.length !== 1) {
          return yield* notFound(found.length > 1 ? "A single function of that name (name it <integration>.<function>)" : "Function")
        }
        return found[0]
      })

    const credentialsFor = (tenantId: string, integrationId: string) => Effect.map(secrets.credentials(tenantId, integrationId), Option.getOrElse(() => ({})))

    const run = (fn: CallableRow, input: Record<string, unknown>, caller: Caller) =>
      Effect.gen(function*() {
        const started = performance.now()
        let outcome: CallOutcome & { readonly logs?: string }
        if (fn.kind === "script") {
          outcome = yield* workers.run(
            scriptTask,
            { source: fn.source ?? "", input, cpuMs: SCRIPT_CPU_MS, memoryBytes: SCRIPT_MEMORY_BYTES },
            { tenantId: caller.tenantId, timeoutMs: SCRIPT_HARD_LIMIT_MS }
          ).pipe(Effect.catchAll((e) => Effect.succeed({ ok: false, httpStatus: null, output: null, error: `The script was stopped: ${e.message}`, logs: "" })))
        } else {
          outcome = yield* callHttp({
            baseUrl: fn.base_url ?? "",
            method: fn.method ?? "GET",
            path: fn.path ?? "/",
            input,
            auth: fn.auth,
            credentials: yield* credentialsFor(caller.tenantId, fn.integration_id),
            accessToken: fn.auth.type === "oauth2" ? yield* oauth.accessToken(caller.tenantId, fn.integration_id, caller.userId) : undefined,
            timeoutMs: config.functionTimeoutSeconds * 1000,
            maxResponseBytes: config.functionMaxResponseBytes,
            dispatcher: guard.dispatcher
          })
        }
        const durationMs = Math.round((performance.now() - started) * 100) / 100
        const id = uuidV7()
        yield* sql`INSERT INTO integration_executions ${
          sql.insert({
            id,
            tenant_id: caller.tenantId,
            integration_id: fn.integration_id,
            function_id: fn.id,
            function_name: fn.name,
            status: outcome.ok ? "success" : "error",
            input: JSON.stringify(input),
            output: outcome.output === undefined ? null : JSON.stringify(outcome.output),
            error: outcome.error ?? null,
            logs: outcome.logs ?? null,
            http_status: outcome.httpStatus,
            duration_ms: durationMs,
            run_id: caller.runId,
            created_by: caller.userId
          })
        }`.pipe(Effect.orDie)
        return {
          execution_id: id,
          status: outcome.ok ? "success" as const : "error" as const,
          ...(outcome.output !== null && outcome.output !== undefined ? { output: outcome.output } : {}),
          duration_ms: durationMs,
          ...(outcome.error !== undefined ? { error: outcome.error } : {})
        }
      }).pipe(spanAttributes({ "function.id": fn.id, "function.name": fn.name }))

    const checkInput = (fn: CallableRow, input: Record<string, unknown>): Effect.Effect<void, BadRequest> => {
      const problems = checkJsonSchema(fn.input_schema, input)
      return problems.length === 0
        ? Effect.void
        : Effect.fail(badRequest(
          "INVALID_INPUT",
          `input does not match the function's input_schema: ${problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")}`,
          problems.map((p) => ({ path: ["input", ...p.path.split("/").filter((s) => s !== "")], message: p.message }))
        ))
    }

    const execute = (principal: Principal, body: typeof ExecuteRequest.Type) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        if (body.function_id === undefined && body.function_name === undefined) {
          return yield* badRequest("VALIDATION_ERROR", "Name the function: function_id or function_name", [{ path: ["function_id"], message: "required" }])
        }
        const fn = yield* resolve(principal.tenantId, body)
        yield* checkInput(fn, body.input)
        return yield* run(fn, body.input, { tenantId: principal.tenantId, userId: principal.userId, runId: null })
      })

    const executions = (principal: Principal, params: typeof ExecutionListParams.Type) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const where = sql.and([
          sql`tenant_id = ${principal.tenantId}`,
          ...(params.integration_id !== undefined ? [sql`integration_id = ${params.integration_id}`] : []),
          ...(params.function_id !== undefined ? [sql`function_id = ${params.function_id}`] : []),
          ...(params.from !== undefined ? [sql`created_at >= ${params.from}`] : []),
          ...(params.to !== undefined ? [sql`created_at <= ${params.to}`] : [])
        ])
        const rows = yield* sql`SELECT * FROM integration_executions WHERE ${where} ORDER BY created_at DESC, id
          LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(executionRows, Effect.orDie)
        const [c] = yield* sql`SELECT count(*)::int AS total FROM integration_executions WHERE ${where}`.pipe(
          decodeRows("integration_executions", Schema.Struct({ total: Schema.Number }))
        ).pipe(Effect.orDie)
        return pageOf(params, rows.map(toExecution), c?.total ?? 0)
      })

    const execution = (principal: Principal, id: string) =>
      Effect.zipRight(
        requireBuilder(principal),
        sql`SELECT * FROM integration_executions WHERE tenant_id = ${principal.tenantId} AND id = ${id}`.pipe(executionRows, Effect.orDie)
      ).pipe(Effect.flatMap((rows) =>
        Option.match(Option.fromNullable(rows[0]), { onNone: () => Effect.fail(notFound("Execution")), onSome: (r) => Effect.succeed(toExecution(r)) })
      ))

    return traced("Functions", {
      callable: (principal: Principal) =>
        Effect.zipRight(requireBuilder(principal), callable(principal.tenantId)).pipe(
          Effect.map((rows) => ({
            items: rows.map((f) => ({
              function_id: f.id,
              function_name: f.name,
              integration_id: f.integration_id,
              integration_name: f.integration_name,
              description: f.description,
              input_schema: f.input_schema,
              side_effects: f.side_effects
            }))
          }))
        ),
      callableByIds,
      checkInput,
      run,
      execute,
      executions,
      execution
    })
  })
}) {}

import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { detailFor } from "../../../otel/Redaction.js"
import { runTraceId } from "../../../otel/RunTraceIds.js"
import { RunTraceStore, type TraceRun, traceRunRows, type Worklog } from "../../../otel/RunTraceStore.js"
import { traceDocument } from "../../../otel/TraceDocument.js"
import { fitToCap } from "../../../otel/Truncation.js"
import { AppConfig } from "../../../platform/Config.js"
import { decodePageToken, encodePageToken } from "../../../platform/PageToken.js"
import { RateLimiter } from "../../../platform/RateLimiter.js"
import { traced } from "../../../platform/Traced.js"
import { requireReader } from "../../../schemas/Authorization.js"
import { badRequest, notFound, PayloadTooLarge, TooManyRequests } from "../../../schemas/Errors.js"
import type { WorkflowId } from "../../../schemas/Ids.js"
import type { Principal } from "../../../schemas/Principal.js"
import { RunsRepo } from "../RunsRepo.js"
import { WorkflowsRepo } from "../WorkflowsRepo.js"

/** Requests per minute per workspace, across both trace endpoints (01 "Limits"). */
export const TRACE_REQUESTS_PER_MINUTE = 60

/** The page token: where the previous page ended (created_at and id of its last run). */
const encodeToken = (run: TraceRun) => encodePageToken({ c: run.created_at.toISOString(), i: run.id })
const decodeToken = (token: string): { readonly c: string; readonly i: string } | undefined => {
  const { c, i } = decodePageToken(token) ?? {}
  return typeof c === "string" && typeof i === "string" && !Number.isNaN(Date.parse(c)) && /^[0-9a-f-]{36}$/.test(i)
    ? { c, i }
    : undefined
}

/** The trace endpoints: worklogs by role, rate-limited per workspace and capped in size. */
export class Traces extends Effect.Service<Traces>()("Traces", {
  dependencies: [RunsRepo.Default, WorkflowsRepo.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const runs = yield* RunsRepo
    const workflows = yield* WorkflowsRepo
    const traces = yield* RunTraceStore
    const limiter = yield* RateLimiter
    const config = yield* AppConfig

    const throttle = (principal: Principal) =>
      Effect.gen(function*() {
        const decision = yield* limiter.hit(`trace:${principal.tenantId}`, TRACE_REQUESTS_PER_MINUTE, 60)
        if (!decision.allowed) {
          return yield* new TooManyRequests({
            code: "RATE_LIMITED",
            message: `Trace requests are limited to ${TRACE_REQUESTS_PER_MINUTE} per minute per workspace`,
            retry_after_seconds: decision.retryAfterSeconds
          })
        }
      })

    const tooLarge = () =>
      new PayloadTooLarge({
        code: "TRACE_TOO_LARGE",
        message: `The trace is over ${config.traceMaxBytes} bytes even after truncation`
      })

    const runTrace = (principal: Principal, runId: string) =>
      Effect.gen(function*() {
        const row = yield* runs.get(principal, runId)
        if (Option.isNone(row)) return yield* notFound("Run")
        yield* requireReader(principal)
        yield* throttle(principal)
        const run = yield* traces.run(row.value.id)
        if (run === undefined) return yield* notFound("Run")
        const document = traceDocument(yield* traces.worklogs([run]), detailFor(principal.role))
        const fitted = fitToCap(document, config.traceMaxBytes)
        if (fitted === undefined) return yield* tooLarge()
        return { ...fitted.document, truncated: fitted.truncated }
      })

    const workflowTrace = (principal: Principal, workflowId: WorkflowId, params: {
      start_time?: Date | undefined
      end_time?: Date | undefined
      page_token?: string | undefined
      page_size: number
    }) =>
      Effect.gen(function*() {
        const workflow = yield* workflows.get(principal, workflowId)
        if (Option.isNone(workflow)) return yield* notFound("AI Employee")
        yield* requireReader(principal)
        const cursor = params.page_token === undefined ? undefined : decodeToken(params.page_token)
        if (params.page_token !== undefined && cursor === undefined) return yield* badRequest("INVALID_PAGE_TOKEN", "page_token is not one this endpoint gave")
        yield* throttle(principal)
        const page = yield* sql`SELECT ${sql.literal(RunTraceStore.columns)} FROM runs
          WHERE tenant_id = ${principal.tenantId} AND workflow_id = ${workflowId} AND NOT is_dry_run
            ${params.start_time === undefined ? sql`` : sql`AND created_at >= ${params.start_time}`}
            ${params.end_time === undefined ? sql`` : sql`AND created_at <= ${params.end_time}`}
            ${cursor === undefined ? sql`` : sql`AND (created_at, id) < (${new Date(cursor.c)}, ${cursor.i})`}
          ORDER BY created_at DESC, id DESC LIMIT ${params.page_size + 1}`.pipe(traceRunRows, Effect.orDie)
        const detail = detailFor(principal.role)
        const worklogs = yield* traces.worklogs(page.slice(0, params.page_size))
        // A page also ends before the run that would take it over the size cap (one run at least).
        const kept: Array<Worklog> = []
        let bytes = 0
        for (const w of worklogs) {
          bytes += Buffer.byteLength(JSON.stringify(traceDocument([w], detail)))
          if (kept.length > 0 && bytes > config.traceMaxBytes) break
          kept.push(w)
        }
        const more = kept.length < worklogs.length || page.length > params.page_size
        const envelope = {
          runs: kept.map(({ run }) => ({
            run_id: run.id,
            trace_id: runTraceId(run.id),
            version: run.version,
            status: run.status,
            trigger_type: run.trigger_type,
            created_at: run.created_at
          })),
          next_page_token: more && kept.length > 0 ? encodeToken(kept.at(-1)!.run) : null
        }
        const fitted = fitToCap(traceDocument(kept, detail), config.traceMaxBytes, envelope)
        if (fitted === undefined) return yield* tooLarge()
        return { ...fitted.document, truncated: fitted.truncated, ...envelope }
      })

    return traced("Traces", { runTrace, workflowTrace })
  })
}) {}

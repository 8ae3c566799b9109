import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized, Unprocessable, UnsupportedMediaType } from "./Errors.js"
import { IdempotencyHeaders } from "./Idempotency.js"
import { WebhookId, WorkflowId } from "./Ids.js"
import { LimitOffsetParams, PageParams } from "./Pagination.js"
import { PublicAppInfo, PublicRun } from "./PublicApp.js"
import * as R from "./Run.js"
import * as Security from "./Security.js"
import * as T from "./Trace.js"
import * as W from "./Webhook.js"

const workflowId = HttpApiSchema.param("id", WorkflowId)
const runId = HttpApiSchema.param("run_id", Schema.UUID)
const requestId = HttpApiSchema.param("request_id", Schema.UUID)

export class RunsApi extends HttpApiGroup.make("runs")
  .add(
    HttpApiEndpoint.post("run")`/workflows/${workflowId}/run`
      .setPayload(R.StartRunRequest)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(R.Run, { status: 202 })
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "Starts a run of the active version (202, pending). A tenant whose settings set max_run_starts_per_second gets 429 " +
          "RATE_LIMITED with Retry-After past that rate (dry runs count too). While the process is overloaded (OVERLOAD_LOOP_LAG_MS) " +
          "and several tenants start runs, each tenant's starts are paced at one shared rate: a tenant asking for more gets the " +
          "same 429 RATE_LIMITED with Retry-After, one asking for less is never refused, a tenant alone never is. Chat messages, " +
          "document generation, webhook deliveries and public app runs start runs too and count against the same rate and share."
      )
  )
  .add(
    HttpApiEndpoint.post("dryRun")`/workflows/${workflowId}/dry-run`
      .setPayload(R.DryRunRequest)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(R.Run, { status: 202 })
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "Runs the latest saved version, a draft included (`version` picks another; 404 when it does not exist), so a builder can test before publishing. " +
          "No tool with side effects is invoked (the model is told so); the run is not listed with real runs or in traces of the AI Employee, and is followed on its stream like any run."
      )
  )
  .add(HttpApiEndpoint.get("get")`/runs/${runId}`.addSuccess(R.DetailedRun))
  .add(HttpApiEndpoint.get("steps")`/runs/${runId}/steps`.addSuccess(Schema.Struct({ items: Schema.Array(R.Step) })))
  .add(
    HttpApiEndpoint.get("stream")`/runs/${runId}/stream`
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }))
      .addSuccess(HttpApiSchema.NoContent)
  )
  .add(
    HttpApiEndpoint.get("externalToolSnapshots")`/runs/${runId}/external-tool-snapshots`
      .addSuccess(Schema.Struct({ items: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })) }))
  )
  .add(HttpApiEndpoint.get("listForWorkflow")`/workflows/${workflowId}/runs`.setUrlParams(R.RunFilters).addSuccess(R.RunPage))
  .add(HttpApiEndpoint.get("recent", "/runs").setUrlParams(LimitOffsetParams).addSuccess(R.RecentRuns))
  .add(
    HttpApiEndpoint.get("history", "/runs/history")
      .setUrlParams(R.RunHistoryParams)
      .addSuccess(R.RunHistory)
      .annotate(
        OpenApi.Description,
        "Every run of the workspace (child runs and each chat turn included; dry runs excluded), newest first (or `order=oldest`), filtered by status, trigger_type, " +
          "workflow_id, parent_run_id (the child runs of a run) and created_at (since inclusive, until exclusive); `next_cursor` continues " +
          "(400 INVALID_PAGE_TOKEN for a cursor this list did not issue, or one issued for the other order). Keyset paging: a page costs the same at any depth."
      )
  )
  .add(HttpApiEndpoint.post("cancel")`/runs/${HttpApiSchema.param("id", Schema.UUID)}/cancel`.addSuccess(R.CancelResult))
  .add(
    HttpApiEndpoint.get("trace")`/runs/${runId}/trace`
      .addSuccess(T.RunTrace)
      .annotate(
        OpenApi.Description,
        "The run's worklog in OTLP JSON: `traces.resourceSpans` (a root span for the run, a span per step, model and tool call) and " +
          "`logs.resourceLogs`. Detail depends on the caller's role. 60 requests per minute per workspace across both trace endpoints; " +
          "payloads over 10 MiB are truncated (largest attribute values first, then logs), 413 if still over."
      )
  )
  .add(
    HttpApiEndpoint.get("workflowTrace")`/workflows/${workflowId}/runs/trace`
      .setUrlParams(T.WorkflowTraceParams)
      .addSuccess(T.WorkflowTrace)
      .annotate(
        OpenApi.Description,
        "The worklogs of the AI Employee's runs (dry runs excluded) created between start_time and end_time, newest first, merged " +
          "into one OTLP document; `next_page_token` continues. A page also ends early to stay under 10 MiB."
      )
  )
  .addError(Conflict)
  .addError(Unprocessable)
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow")
{}

/** The public surface of an AI Employee with `public_app` on: no credential. */
export class PublicAppApi extends HttpApiGroup.make("publicApp")
  .add(
    HttpApiEndpoint.get("info")`/public/${workflowId}`
      .addSuccess(PublicAppInfo)
      .annotate(
        OpenApi.Description,
        "What the public app's page needs, without a credential: name, description, icon and the start node's input schema (404 unless `public_app` is on)"
      )
  )
  .add(
    HttpApiEndpoint.get("runStatus")`/public/${workflowId}/runs/${runId}`
      .addSuccess(PublicRun)
      .annotate(
        OpenApi.Description,
        "A run started from the public app, without a credential: its status, its steps' progress and, once ended, its output. " +
          "Only runs of this AI Employee with trigger_type app_public, while `public_app` is on (404 otherwise)."
      )
  )
  .add(
    HttpApiEndpoint.post("run")`/public/${workflowId}/run`
      .setPayload(R.StartRunRequest)
      .addSuccess(R.Run, { status: 202 })
      .annotate(
        OpenApi.Description,
        "Starts a run of the AI Employee's active version without a credential (trigger_type app_public) when its " +
          "`public_app` is on (404 otherwise). Rate-limited per client address (PUBLIC_APP_RUNS_PER_MINUTE, 429 with " +
          "Retry-After); input_params are checked against the input schema as on the run endpoint. The tenant's run starts are paced " +
          "as on POST /workflows/{id}/run too (its max_run_starts_per_second, fair shares under overload: 429 RATE_LIMITED with Retry-After), " +
          "and the visitors of all its public apps together get half of its max_run_starts_per_second (at least 1 a second): the tenant's own starts keep the rest."
      )
  )
  .addError(NotFound)
  .addError(Conflict)
  .addError(TooManyRequests)
  .prefix("/api/v1/workflow")
{}

const webhookId = HttpApiSchema.param("webhook_id", WebhookId)

/** An AI Employee's inbound webhooks (builders manage them). */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(HttpApiEndpoint.post("create")`/workflows/${workflowId}/webhooks`.addSuccess(W.WebhookCreated, { status: 201 }))
  .add(HttpApiEndpoint.get("list")`/workflows/${workflowId}/webhooks`.addSuccess(W.WebhookList))
  .add(HttpApiEndpoint.del("remove")`/workflows/${workflowId}/webhooks/${webhookId}`.addSuccess(HttpApiSchema.NoContent))
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow")
{}

/** Deliveries to a webhook's url: no credential, the signature is the proof. */
export class WebhookDeliveryApi extends HttpApiGroup.make("webhookDelivery")
  .add(
    HttpApiEndpoint.post("deliver")`/webhooks/${webhookId}`
      .setHeaders(Schema.Struct({
        "x-signature-256": Schema.optional(Schema.String),
        "x-webhook-id": Schema.optional(Schema.String)
      }))
      .addSuccess(W.WebhookAccepted, { status: 202 })
      .annotate(
        OpenApi.Description,
        "A JSON body (at most 1 MiB; other types are 415) signed with `X-Signature-256: sha256=<hex HMAC-SHA256 of the raw body " +
          "with the webhook's secret>` (401 INVALID_SIGNATURE otherwise, nothing started) starts a run of the active version with " +
          "the body as input_params (trigger_type webhook). `X-Webhook-Id` makes a delivery idempotent: a redelivery answers the " +
          "run the first one started with the identical answer (within 24 hours; another body with the same id is 422 " +
          "IDEMPOTENCY_KEY_REUSED). Rate-limited per webhook (WEBHOOK_DELIVERIES_PER_MINUTE), and paced with the tenant's other run " +
          "starts as on POST /workflows/{id}/run (its max_run_starts_per_second, fair shares under overload): 429 RATE_LIMITED with " +
          "Retry-After, nothing started."
      )
  )
  .addError(Unauthorized)
  .addError(Unprocessable)
  .addError(NotFound)
  .addError(Conflict)
  .addError(PayloadTooLarge)
  .addError(UnsupportedMediaType)
  .addError(TooManyRequests)
  .prefix("/api/v1/workflow")
{}

export class HitlApi extends HttpApiGroup.make("hitl")
  .add(HttpApiEndpoint.get("pending", "/hitl/pending").setUrlParams(PageParams).addSuccess(R.HitlPage))
  .add(HttpApiEndpoint.get("get")`/hitl/${requestId}`.addSuccess(R.HitlRequest))
  .add(HttpApiEndpoint.post("respond")`/hitl/${requestId}/respond`.setPayload(R.HitlRespondRequest).addSuccess(R.HitlRequest))
  .add(HttpApiEndpoint.post("claim")`/hitl/${requestId}/claim`.addSuccess(R.HitlRequest))
  .add(HttpApiEndpoint.post("cancel")`/hitl/${requestId}/cancel`.addSuccess(R.HitlRequest))
  .addError(Conflict)
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow")
{}

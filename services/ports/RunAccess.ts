import type { HttpServerResponse } from "@effect/platform"
import { Context, type Effect, type Option } from "effect"
import type { BadRequest, Conflict, Forbidden, NotFound, TooManyRequests, Unprocessable } from "../../schemas/Errors.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import type { HitlRequest, Run } from "../../schemas/Run.js"

/** Runs and their HITL requests as other services use them, implemented by the workflow service. */
export class RunAccess extends Context.Tag("ports/RunAccess")<RunAccess, {
  /** A run of the caller's tenant. */
  readonly get: (principal: Principal, runId: string) => Effect.Effect<Option.Option<{ readonly id: string; readonly session_id: string | null }>>
  /** The SSE response of a run the caller was found allowed to follow, from after `lastEventId`. */
  readonly follow: (run: { readonly id: string }, lastEventId: number) => Effect.Effect<HttpServerResponse.HttpServerResponse>
  /**
   * Whether the caller's tenant may start one more run now, as `POST .../run` asks first: its own
   * start rate, then its fair share while the platform is overloaded (429 RATE_LIMITED with
   * Retry-After). Asked before any work on a request that will start a run, so that a flood costs
   * a refusal and nothing is written.
   */
  readonly admitStart: (principal: Principal) => Effect.Effect<void, TooManyRequests>
  /** Starts a run of an AI Employee's active version for the caller, as `POST .../run` does once admitted. */
  readonly start: (
    principal: Principal,
    workflowId: WorkflowId,
    input: Record<string, unknown>,
    triggerType: Run["trigger_type"],
    options?: { readonly knowledgeBaseIds?: ReadonlyArray<string> | undefined }
  ) => Effect.Effect<Run, NotFound | Forbidden | Conflict | BadRequest | Unprocessable>
  readonly hitlRequest: (principal: Principal, requestId: string) => Effect.Effect<typeof HitlRequest.Type, NotFound | Forbidden>
  readonly respondHitl: (
    principal: Principal,
    requestId: string,
    response: unknown
  ) => Effect.Effect<typeof HitlRequest.Type, NotFound | Forbidden | Conflict | BadRequest | Unprocessable>
}>() {}

import { Effect, Option } from "effect"
import { Forbidden, notFound } from "../../schemas/Errors.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { isAtLeast } from "../../schemas/Roles.js"
import type { SessionRow } from "./SessionsRepo.js"

/** A chat widget key reaches only the AI Employees it names, and of their sessions only external visitors' (404 otherwise). */
export const widgetReaches = (principal: Principal, workflowId: string, channel = "external") =>
  principal.widget === undefined || (principal.widget.workflow_ids.includes(workflowId as WorkflowId) && channel === "external")

export const requireWidgetReach = (principal: Principal, workflowId: string) =>
  widgetReaches(principal, workflowId) ? Effect.void : Effect.fail(notFound("AI Employee"))

/** A session is its owner's alone: anyone else gets 404, as for a session that does not exist. */
export const ownedSession = (principal: Principal, session: Option.Option<SessionRow>) =>
  Option.isSome(session) && session.value.user_id === principal.userId &&
    widgetReaches(principal, session.value.workflow_id, session.value.channel)
    ? Effect.succeed(session.value)
    : Effect.fail(notFound("Chat session"))

/** Who may follow a chat run's stream: the session's owner, or the tenant's API keys for sessions of external channels. */
export const mayFollow = (principal: Principal, session: SessionRow) =>
  (session.user_id === principal.userId || (principal.authMethod === "api_key" && session.channel !== "web")) &&
  widgetReaches(principal, session.workflow_id, session.channel)

export const requireApiKey = (principal: Principal) =>
  principal.authMethod === "api_key"
    ? Effect.void
    : Effect.fail(new Forbidden({ code: "API_KEY_REQUIRED", message: "External channels call this endpoint with an API key" }))

/** Per-turn user_context and impersonation need the tenant flag `chat_impersonation`. */
export const requireImpersonationFlag = (principal: Principal) =>
  principal.settings.chat_impersonation
    ? Effect.void
    : Effect.fail(
      new Forbidden({
        code: "CHAT_IMPERSONATION_DISABLED",
        message: "user_context and impersonation_request need the tenant setting chat_impersonation"
      })
    )

/** Speaking as another person is for those who administer people. */
export const requireImpersonator = (principal: Principal) =>
  isAtLeast(principal.role, "user_admin")
    ? Effect.void
    : Effect.fail(new Forbidden({ code: "FORBIDDEN", message: "Impersonating a user needs the user_admin role or above" }))

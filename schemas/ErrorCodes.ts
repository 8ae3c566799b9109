import { Schema } from "effect"
import { PublishBlockerCatalogue } from "./PublishBlockers.js"

/**
 * Every `code` the API can answer in its error body `{code, message, request_id, details?}`, with
 * its HTTP status (the usual one where a code serves more than one) and what it means. The error
 * constructors in Errors.ts only take these, so a new code is added here first; the OpenAPI
 * document lists them (`components.schemas.ErrorCode` and the document's description).
 * The DAG checks' blocking findings (DAG_CYCLE, NO_LLM_PROVIDER, ...) are codes too
 * (`PublishBlockers.ts`): a refused publish answers its first blocker as `code`.
 */
export const ErrorCatalogue = {
  // 400
  VALIDATION_ERROR: [400, "The request does not match the schema of the endpoint; details lists each problem"],
  INVALID_BODY: [400, "The body is not valid JSON, or nested deeper than MAX_JSON_DEPTH"],
  INVALID_MULTIPART: [400, "A multipart upload could not be read"],
  FILE_REQUIRED: [400, "A multipart upload without its file part"],
  FILE_TOO_LARGE: [400, "An uploaded document over 10 MiB"],
  EMPTY_DOCUMENT: [400, "An uploaded document with no text"],
  UNREADABLE_DOCUMENT: [400, "An uploaded document whose text could not be extracted"],
  UNSUPPORTED_DOCUMENT: [400, "An uploaded document of a type the platform does not read"],
  INVALID_PAGE_TOKEN: [400, "A page_token that this list did not issue"],
  INVALID_EXPIRY: [400, "An API key expiry in the past or not a date"],
  INVALID_WIDGET_KEY: [400, "A chat widget key asked of a system key (a widget key acts as the person who made it)"],
  INVALID_HITL_RESPONSE: [400, "A HITL response that does not fit the request's type, choices or form"],
  INVALID_CODE: [400, "A one-time or TOTP code that does not match (401 when it is a sign-in step)"],
  NOT_AN_ASSISTANT_MESSAGE: [400, "Feedback on a message that is not the assistant's"],
  INVALID_CSV: [400, "A dataset file that is not CSV with a header line; details give the line"],
  UNSUPPORTED_TEMPLATE: [400, "A template upload that is not a DOCX or PPTX file (checked by its content)"],
  INVALID_SPEC: [400, "An OpenAPI document that does not parse, dereference or validate (details says why)"],
  OAUTH_STATE_INVALID: [400, "An OAuth callback whose state is unknown, used, expired or another user's"],
  INVALID_NUDGE_RESPONSE: [400, "A nudge answer that is not one of the card's action values"],
  INVALID_SCHEDULE: [400, "A schedule whose cron or timezone does not parse, or never fires; details names the field"],
  // 401
  UNAUTHORIZED: [401, "No credential, or one that is not a Bearer token or API key"],
  INVALID_TOKEN: [401, "An access or refresh token that does not verify"],
  TOKEN_EXPIRED: [401, "An access or refresh token past its expiry"],
  INVALID_CREDENTIALS: [401, "Wrong email or password"],
  ACCOUNT_INACTIVE: [401, "The account is disabled or no longer a member of the workspace"],
  INVALID_API_KEY: [401, "An API key that does not exist"],
  API_KEY_REVOKED: [401, "A revoked API key"],
  API_KEY_EXPIRED: [401, "An API key past its expiry"],
  API_KEY_ORPHANED: [401, "An API key whose owner left the workspace"],
  SSO_UNAVAILABLE: [401, "The workspace's identity provider could not be reached or is not configured"],
  SSO_INVALID_STATE: [401, "An SSO callback whose state is unknown, used or expired"],
  SSO_INVALID_CALLBACK: [401, "An SSO callback without a code, or with an error from the provider"],
  SSO_EXCHANGE_FAILED: [401, "The identity provider refused the code exchange or sent an invalid ID token"],
  SSO_NO_EMAIL: [401, "The identity provider sent no verified email"],
  SSO_REFUSED: [401, "The SSO user is not allowed into this workspace"],
  INVALID_SIGNATURE: [401, "A webhook delivery whose X-Signature-256 is missing or not the HMAC-SHA256 of its body"],
  // 403
  FORBIDDEN: [403, "The caller's role, credential type or key scope does not allow the operation"],
  API_KEY_REQUIRED: [403, "An endpoint for external channels called without an API key"],
  CHAT_IMPERSONATION_DISABLED: [403, "user_context or impersonation without the tenant setting chat_impersonation"],
  CONNECTION_FORBIDDEN: [403, "A connected queue's system (Zendesk) refuses the request with its connection's credentials"],
  NOT_A_QUEUE_MEMBER: [403, "Ticketing needs effective membership of the queue's group (System Admins reach every queue)"],
  GROUP_UNRESOLVABLE: [403, "The group cannot be resolved in this workspace"],
  REQUESTER_NOT_ALLOWED: [403, "Naming another requester needs a System Admin or a service principal"],
  CSRF_CHECK_FAILED: [403, "A cookie-authenticated write without the matching X-CSRF-Token"],
  REAUTHENTICATION_REQUIRED: [
    403,
    "Switching into a workspace that does not trust this session's sign-in (a session from another workspace's identity provider): sign in to that workspace"
  ],
  CORS_ORIGIN_NOT_ALLOWED: [403, "A browser request from an origin not in CORS_ORIGINS"],
  WIDGET_ORIGIN_NOT_ALLOWED: [403, "A chat widget key used on a page of an origin the key does not list"],
  // 404 and 405
  NOT_FOUND: [404, "No such resource in the caller's workspace (also for resources of other workspaces)"],
  SECTION_NOT_FOUND: [404, "The document has no <section> with that id (target_section_id)"],
  TICKETING_DISABLED: [404, "Ticketing is turned off for this workspace"],
  NO_QUEUE: [404, "The group has no ticket queue"],
  GROUPS_DISABLED: [404, "User groups are turned off for this workspace"],
  METHOD_NOT_ALLOWED: [405, "The path exists, the method does not"],
  // 409
  NOT_PUBLISHED: [409, "The AI Employee has no active version to run, chat with or share"],
  WORKFLOW_CHANGED: [409, "The AI Employee was published, reverted, renamed or archived again and again while the run started: send it again"],
  ACTIVE_VERSION: [409, "The operation is not allowed on the active version"],
  VERSION_IS_DRAFT: [409, "The operation needs a published version, not the draft"],
  VERSION_NAME_TAKEN: [409, "Another version of this AI Employee has that name"],
  RUN_TERMINAL: [409, "The run already ended"],
  HITL_CLAIMED: [409, "Another person claimed this HITL request"],
  HITL_CLOSED: [409, "The HITL request was answered or cancelled"],
  IDEMPOTENCY_KEY_IN_PROGRESS: [409, "The first request with this Idempotency-Key is still being processed"],
  ALREADY_MEMBER: [409, "The user is already a member of the workspace or group"],
  LAST_ADMIN: [409, "The change would leave the workspace without an active member at its highest admin role"],
  GROUP_NAME_TAKEN: [409, "Another group of the workspace has that name"],
  SLUG_TAKEN: [409, "Another workspace has that slug"],
  PROVIDER_NAME_TAKEN: [409, "Another model provider of the workspace has that name"],
  TOTP_ALREADY_ENABLED: [409, "TOTP is already enabled for this user"],
  EVAL_RUBRIC_IN_USE: [409, "An eval config still references this rubric"],
  EVAL_CONFIG_IN_USE: [409, "An eval run references this config"],
  EVAL_RUN_TERMINAL: [409, "The eval run already ended"],
  INTEGRATION_ALREADY_INSTALLED: [409, "The workspace already installed this catalog entry"],
  MCP_SERVER_STATE: [409, "The MCP server's status does not allow that change (enable a disabled server, activate a pending one)"],
  MCP_SERVER_IN_USE: [409, "The active version of an AI Employee binds this MCP server"],
  CATALOG_NAME_TAKEN: [409, "The workspace already has a catalog entry with that name"],
  DOCUMENT_CHANGED: [409, "The document has a newer version than the one the save was based on; reload and save again"],
  SESSION_TRANSFERRED: [409, "The conversation was handed to a person (live agent transfer); the AI Employee no longer answers it"],
  TICKET_CLOSED: [409, "The ticket is closed: no further writes"],
  QUEUE_EXISTS: [409, "The group already has a ticket queue"],
  NUDGE_CLOSED: [409, "The nudge card was already answered, closed or expired"],
  DOCUMENT_TRIGGER_OVERLAP: [409, "Another document trigger of this AI Employee watches an overlapping part of the knowledge base"],
  EMAIL_DOMAIN_CLAIMED: [409, "Another workspace holds that email domain for SSO"],
  FEEDBACK_SENTIMENT_REQUIRED: [409, "Feedback on a message needs a sentiment first"],
  // 413
  PAYLOAD_TOO_LARGE: [413, "The body is over MAX_BODY_BYTES"],
  WEBHOOK_BODY_TOO_LARGE: [413, "A webhook delivery over 1 MiB"],
  UNSUPPORTED_MEDIA_TYPE: [415, "A webhook delivery that is not application/json"],
  TEMPLATE_TOO_LARGE: [413, "A template file over 20 MiB"],
  DATASET_TOO_LARGE: [413, "A dataset file over 5 MiB"],
  TRACE_TOO_LARGE: [413, "The run's trace is over TRACE_MAX_BYTES even after truncation; page the trace listing instead"],
  // 422
  RETENTION_TOO_LONG: [422, "A retention period above the platform's RUN_RETENTION_MAX_DAYS, or a detail period above the run retention"],
  INVALID_INPUT: [422, "input_params (or inputs) do not match the input schema (400 on the run and execute endpoints)"],
  IDEMPOTENCY_KEY_REUSED: [422, "The Idempotency-Key was used with another request body"],
  PUBLISH_CHECKS_FAILED: [422, "The draft does not pass the publish checks (a refusal answers its first blocker's own code; details lists every blocker)"],
  VERSION_NOT_PUBLISHED: [422, "The version named was never published"],
  AGENT_TYPE_UNKNOWN: [422, "No such agent type"],
  AGENT_TYPE_VERSION_INVALID: [422, "The agent type has no such version"],
  AGENT_PRESET_UNKNOWN: [422, "No such agent preset"],
  AGENT_PRESET_MISMATCH: [422, "The preset belongs to another agent type"],
  AGENT_PRESET_RETIRED: [422, "The preset is no longer offered for new steps"],
  TYPE_CONFIG_INVALID: [422, "The agent's type_config does not match its type"],
  NOT_A_CHAT_AI_EMPLOYEE: [422, "Chat with an AI Employee whose interaction_type is not chat"],
  INVALID_BEARER_TOKEN: [422, "The bearer_token of an external trigger is not a valid access token of the workspace"],
  IDENTITY_REQUIRED: [422, "An external channel message without a user identity"],
  IMPERSONATION_TARGET_NOT_FOUND: [422, "impersonation_request names no user of the workspace"],
  UNKNOWN_FEEDBACK_CATEGORY: [422, "A feedback category the AI Employee does not offer"],
  INVALID_CURSOR: [422, "A cursor that this list did not issue"],
  GROUP_CYCLE: [422, "Nesting these groups would make a cycle"],
  SAME_WORKSPACE: [422, "Sharing an AI Employee into its own workspace"],
  OAUTH_NOT_CONFIGURED: [422, "The integration does not use OAuth 2.0, or its install has no client_id/client_secret credentials"],
  OAUTH_EXCHANGE_FAILED: [422, "The authorization server refused the code exchange"],
  NOT_A_PRESENTATION: [422, "Slides belong to PPTX templates; this one is not"],
  SLIDE_ORDER_INVALID: [422, "A slide order must list every slide's index exactly once"],
  STATUS_NOT_ALLOWED: [422, "The status endpoint sets OPEN, IN_PROGRESS or HOLD; close a ticket with /close"],
  ASSIGNEE_UNRESOLVABLE: [422, "assignee_email is not a member of the workspace"],
  RESERVED_LABEL: [422, "A tag in the reserved label namespace (queue:)"],
  TYPE_NOT_ACCEPTED: [422, "A ticket type the queue does not accept"],
  SORT_NOT_SUPPORTED: [422, "A sort key the queue does not serve (see sortable_by)"],
  CONNECTION_NOT_FOUND: [422, "connection_id names no installed integration of category ticketing in this workspace"],
  BACKEND_REJECTED: [422, "A connected queue's system (Zendesk) refuses the values of the request; the message carries its reason"],
  FIELD_NOT_SUPPORTED: [422, "A field the queue's backend cannot change (a Zendesk ticket's description is its first comment)"],
  CONNECTION_REQUIRED: [422, "A queue's backend and connection_id disagree (builtin omits it, external needs one)"],
  MODEL_UNAVAILABLE: [422, "No model is available to the workspace for this, or the model failed to answer"],
  DOCGEN_NO_WORKFLOW: [422, "Generation needs a workflow_id in the request or bound to the document"],
  DATASET_TOO_MANY_ROWS: [422, "A dataset over 10,000 rows"],
  DATASET_NOT_MAPPED: [422, "The dataset's columns are not mapped to inputs yet (POST /datasets/{id}/mapping)"],
  DATASET_UNKNOWN_COLUMN: [422, "A mapping names a column the dataset does not have"],
  RUBRIC_SCHEMA_INVALID: [422, "rubric_schema is not a JSON Schema of an object whose properties are numeric or boolean score fields"],
  EVAL_TARGET_INVALID: [422, "target_node_id does not name an agent node of the AI Employee's active version (or is missing for an agent target)"],
  EVAL_DATASET_MISMATCH: [422, "Comparing eval runs built on different datasets"],
  EVAL_JUDGE_FAILED: [422, "The judge model could not draft a rubric"],
  MCP_STDIO_NOT_ALLOWED: [422, "A stdio MCP server whose program is not listed in MCP_STDIO_COMMANDS"],
  MCP_DISCOVERY_FAILED: [422, "The MCP server could not be reached or listed no tools; discovery_error says why"],
  OUTBOUND_ADDRESS_REFUSED: [422, "A tenant-supplied URL that resolves to a private, loopback or metadata address"],
  INPUT_LIMIT_EXCEEDED: [
    422,
    "Processing the input (an office file, an OpenAPI document, an uploaded document, a CSV) went over a cap (inflated size, entries, compression ratio, size with $refs dereferenced) or over its time or memory limit, and was stopped"
  ],
  // 424
  CONNECTION_UNAVAILABLE: [
    424,
    "The queue's connection was deleted, disconnected or misconfigured (credentials refused, not a Zendesk API); retrying will not help"
  ],
  // 429
  RATE_LIMITED: [429, "Too many requests; retry after retry_after_seconds"],
  TOO_MANY_ATTEMPTS: [429, "Too many failed sign-in or code attempts; retry after retry_after_seconds"],
  WORKERS_BUSY: [
    429,
    "The workspace already has WORKER_TENANT_QUEUE heavy tasks (file parsing, scripts, imports) running or waiting; retry after retry_after_seconds"
  ],
  // 500, 501 and 503
  NOT_IMPLEMENTED: [501, "A documented option the platform does not offer (export as pdf or pptx, the AI outline)"],
  INTERNAL_ERROR: [500, "An unexpected failure; the request_id finds it in the logs"],
  BACKEND_UNAVAILABLE: [503, "A connected queue's system timed out, failed (5xx) or throttled the connection; retry after Retry-After"],
  UNAVAILABLE: [
    503,
    "The service cannot answer now (a dependency is down, or the request's transaction lost a deadlock to a concurrent one and saved nothing); retry after Retry-After"
  ],
  STARTING: [503, "The process is starting (migrations, bootstrap); retry in a moment"],
  DATABASE_UNAVAILABLE: [503, "PostgreSQL cannot be reached; retry after Retry-After"],
  SHUTTING_DOWN: [503, "The process is draining before it stops; retry on another"],
  NO_RUNNERS: [503, "No runner process owns shards yet (ROLE=gateway or services): the run cannot be placed; retry after Retry-After"],
  ...PublishBlockerCatalogue
} as const satisfies Record<string, readonly [number, string]>

export type ErrorCode = keyof typeof ErrorCatalogue

export const ErrorCodes = Object.keys(ErrorCatalogue) as ReadonlyArray<ErrorCode>

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ErrorCatalogue, code)

export const ErrorCode = Schema.Literal(...(ErrorCodes as [ErrorCode, ...Array<ErrorCode>])).annotations({
  identifier: "ErrorCode",
  description: "Every code the API answers; the meaning of each is in the description of the OpenAPI document."
})

/** The catalogue as a Markdown table, for the OpenAPI document's description. */
export const errorCodeTable = () =>
  [
    "| code | status | meaning |",
    "|---|---|---|",
    ...ErrorCodes.map((code) => `| \`${code}\` | ${ErrorCatalogue[code][0]} | ${ErrorCatalogue[code][1]} |`)
  ].join("\n")

/**
 * The DAG checks' blocking findings (`severity: error`): every one is also an error code, since a
 * refused publish answers 422 with its first blocker as `code` (every blocker in `details`).
 * Warnings (`TEMPLATE_UNKNOWN_INPUT`, `NUDGE_PARK_NO_DOWNSTREAM_REREAD`, `NUDGE_COLLECT_NEVER_ENDS`)
 * never block and are not codes of an answer.
 */
export const PublishBlockerCatalogue = {
  DAG_EMPTY: [422, "Publish blocker: the DAG has no nodes"],
  DAG_INVALID: [422, "Publish blocker: the DAG is not an object"],
  NODE_INVALID: [422, "Publish blocker: a node's configuration does not match its type's schema"],
  NODE_TYPE_UNKNOWN: [422, "Publish blocker: a node of an unknown type"],
  NODE_ID_DUPLICATE: [422, "Publish blocker: two nodes with one id"],
  NODE_TYPE_UNAVAILABLE: [422, "Publish blocker: a node type without a runtime"],
  EDGE_INVALID: [422, "Publish blocker: a malformed edge"],
  EDGE_UNKNOWN_NODE: [422, "Publish blocker: an edge to a missing node"],
  DAG_CYCLE: [422, "Publish blocker: the edges make a cycle"],
  TEMPLATE_INVALID_REF: [422, "Publish blocker: a {{path}} outside the run context"],
  TEMPLATE_UNKNOWN_NODE: [422, "Publish blocker: a {{path}} naming a missing node"],
  CONDITION_INVALID_REF: [422, "Publish blocker: a condition ref outside the run context"],
  CONDITION_UNKNOWN_NODE: [422, "Publish blocker: a condition naming a missing node"],
  INPUT_SCHEMA_INVALID: [422, "Publish blocker: input_schema is not a JSON Schema"],
  OUTPUT_INVALID: [422, "Publish blocker: a malformed output"],
  NO_LLM_PROVIDER: [422, "Publish blocker: agent steps call a model but no completion model is enabled within the AI Employee's llm_mode"],
  HITL_INVALID_ASSIGNEE: [422, "Publish blocker: a HITL assignee that resolves to nobody"],
  HITL_INVALID_CHOICES: [422, "Publish blocker: ask_human with an empty list of choices"],
  HITL_FORM_SCHEMA_MISSING: [422, "Publish blocker: a HITL form without form_schema"],
  MCP_SERVER_NOT_FOUND: [422, "Publish blocker: an agent step names an MCP server that does not exist"],
  MCP_SERVER_NOT_APPROVED: [422, "Publish blocker: an agent step names an MCP server that is pending review or disabled"],
  TOOL_NOT_FOUND: [422, "Publish blocker: an action id that is no enabled tool"],
  TOOL_CONFIG_INVALID: [422, "Publish blocker: a tool_config that does not match the tool's schema"],
  CALL_AIE_TARGET_NOT_FOUND: [422, "Publish blocker: call_aie names an AI Employee not published in the workspace"],
  CALL_AIE_RECURSION: [422, "Publish blocker: call_aie names the AI Employee itself"],
  TRANSFER_GROUP_NOT_FOUND: [422, "Publish blocker: live_agent_transfer names a missing group"],
  TRANSFER_GROUP_NO_QUEUE: [422, "Publish blocker: live_agent_transfer names a group without a ticket queue"],
  NUDGE_PARK_REQUIRES_EXPIRY: [422, "Publish blocker: a park-mode notify_user without a positive expires_after_seconds"],
  SCHEDULE_INVALID: [422, "Publish blocker: a schedule node's literal cron or time zone does not parse"],
  SCHEDULE_NODE_REQUIRES_DASHBOARD: [422, "Publish blocker: a schedule node on an AI Employee whose interaction_type is not dashboard"]
} as const satisfies Record<string, readonly [number, string]>

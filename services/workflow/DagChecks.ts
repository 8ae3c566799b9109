import { Effect, Either, Schema } from "effect"
import { type DagFacts, validateDag } from "../../runtime/dag/Validate.js"
import { ExtraNodeTypes } from "../../runtime/nodes/NodeType.js"
import { unavailableNodeTypes } from "../../runtime/nodes/UnavailableNodes.js"
import { DagNode } from "../../schemas/Dag.js"
import type { Principal } from "../../schemas/Principal.js"
import { isAtLeast, Roles } from "../../schemas/Roles.js"
import { People } from "../ports/People.js"
import { McpRegistry, ModelAvailability, ToolCatalog } from "../ports/PublishChecks.js"
import { TicketQueues } from "../ports/TicketQueues.js"
import { configOf, type WorkflowRow, WorkflowsRepo } from "./WorkflowsRepo.js"

const decodeNode = Schema.decodeUnknownEither(DagNode)
const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)

/** The well-formed nodes of a stored DAG: what references are collected from. */
const wellFormedNodes = (dag: unknown): ReadonlyArray<DagNode> => {
  const nodes = dag !== null && typeof dag === "object" && Array.isArray((dag as { nodes?: unknown }).nodes)
    ? (dag as { nodes: ReadonlyArray<unknown> }).nodes
    : []
  return nodes.flatMap((n) => {
    const d = decodeNode(n)
    return Either.isRight(d) ? [d.right] : []
  })
}

/** Resolves everything the DAG refers to outside itself, then runs the pure validator. */
export class DagChecks extends Effect.Service<DagChecks>()("DagChecks", {
  effect: Effect.gen(function*() {
    const people = yield* People
    const workflows = yield* WorkflowsRepo
    const mcp = yield* McpRegistry
    const tools = yield* ToolCatalog
    const models = yield* ModelAvailability
    const queues = yield* TicketQueues

    const facts = (principal: Principal, row: WorkflowRow) =>
      Effect.gen(function*() {
        const nodes = wellFormedNodes(row.dag_definition)
        const emails = new Set<string>()
        const groups = new Set<string>()
        const mcpIds = new Set<string>()
        const actionIds = new Set<string>()
        const called = new Set<string>()
        for (const node of nodes) {
          const a = node.hitl?.assignee
          if (a !== undefined && "user_email" in a) emails.add(a.user_email.toLowerCase())
          if (a !== undefined && "group_id" in a) groups.add(a.group_id)
          if (node.type === "live_agent_transfer") groups.add(node.live_agent_transfer_config.group_id)
          if (node.type === "call_aie") called.add(node.call_aie_config.workflow_id)
          if (node.type === "agent") {
            node.agent_config.mcp_server_ids?.forEach((id) => mcpIds.add(id))
            node.agent_config.action_ids?.forEach((id) => actionIds.add(id))
          }
        }
        const memberRoles = yield* people.activeRoles(principal.tenantId)
        return {
          llmAvailable: yield* models.hasCompletionModel(principal.tenantId, configOf(row)),
          memberEmails: yield* people.activeMemberEmails(principal.tenantId, [...emails]),
          // A role resolves when someone active holds it or a role above it.
          resolvableRoles: new Set(Roles.filter((role) => memberRoles.some((m) => isAtLeast(m, role)))),
          groupIds: yield* people.existingGroups(principal.tenantId, [...groups].filter(isUuid)),
          queueGroupIds: yield* queues.groupsWithQueue(principal.tenantId, [...groups].filter(isUuid)),
          mcpServers: yield* mcp.statuses(principal.tenantId, [...mcpIds]),
          tools: yield* tools.lookup(principal.tenantId, [...actionIds]),
          callableWorkflows: yield* workflows.callable(principal, [...called].filter(isUuid)),
          selfWorkflowId: row.id,
          interactionType: row.interaction_type,
          legacySteps: new Set(row.legacy_steps),
          unavailableNodeTypes: unavailableNodeTypes(yield* ExtraNodeTypes)
        } satisfies DagFacts
      }).pipe(Effect.orDie)

    const check = (principal: Principal, row: WorkflowRow) =>
      facts(principal, row).pipe(
        Effect.map((f) => validateDag(row.dag_definition, f)),
        Effect.withSpan("DagChecks.check")
      )

    return { check }
  })
}) {}

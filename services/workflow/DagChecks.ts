import { Effect, Either } from "effect"
import { traced } from "../../platform/Traced.js"
import type { DagFacts } from "../../runtime/dag/DagFacts.js"
import { validateDag } from "../../runtime/dag/Validate.js"
import { nodeTypesInForce } from "../../runtime/nodes/Nodes.js"
import type { NodeContract } from "../../runtime/nodes/NodeType.js"
import type { NodeEnvelope } from "../../schemas/Dag.js"
import type { Principal } from "../../schemas/Principal.js"
import { asRecord } from "../../schemas/Records.js"
import { isAtLeast, Roles } from "../../schemas/Roles.js"
import { People } from "../ports/People.js"
import { McpRegistry, ModelAvailability, ToolCatalog } from "../ports/PublishChecks.js"
import { TicketQueues } from "../ports/TicketQueues.js"
import { configOf, type WorkflowRow, WorkflowsRepo } from "./WorkflowsRepo.js"

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)

/** The well-formed nodes of a stored DAG, each with its type: what references are collected from. */
const wellFormedNodes = (dag: unknown, nodeTypes: ReadonlyMap<string, NodeContract>) => {
  const nodes = asRecord(dag).nodes
  return (Array.isArray(nodes) ? nodes : []).flatMap((n: unknown): ReadonlyArray<readonly [NodeEnvelope, NodeContract]> => {
    const type = asRecord(n).type
    const contract = typeof type === "string" ? nodeTypes.get(type) : undefined
    const decoded = contract?.decode(n)
    return contract !== undefined && decoded !== undefined && Either.isRight(decoded) ? [[decoded.right, contract]] : []
  })
}

/** Resolves everything the DAG refers to outside itself, then runs the pure validator. */
export class DagChecks extends Effect.Service<DagChecks>()("DagChecks", {
  dependencies: [WorkflowsRepo.Default],
  effect: Effect.gen(function*() {
    const people = yield* People
    const workflows = yield* WorkflowsRepo
    const mcp = yield* McpRegistry
    const tools = yield* ToolCatalog
    const models = yield* ModelAvailability
    const queues = yield* TicketQueues
    // Read when the service is built, where the platform's node types are provided.
    const nodeTypes = yield* nodeTypesInForce

    const facts = (principal: Principal, row: WorkflowRow, nodeTypes: ReadonlyMap<string, NodeContract>) =>
      Effect.gen(function*() {
        const nodes = wellFormedNodes(row.dag_definition, nodeTypes)
        const emails = new Set<string>()
        const groups = new Set<string>()
        const mcpIds = new Set<string>()
        const actionIds = new Set<string>()
        const called = new Set<string>()
        for (const [node, contract] of nodes) {
          const a = node.hitl?.assignee
          if (a !== undefined && "user_email" in a) emails.add(a.user_email.toLowerCase())
          if (a !== undefined && "group_id" in a) groups.add(a.group_id)
          const refs = contract.refs(node)
          refs.groupIds?.forEach((id) => groups.add(id))
          refs.workflowIds?.forEach((id) => called.add(id))
          refs.mcpServerIds?.forEach((id) => mcpIds.add(id))
          refs.toolIds?.forEach((id) => actionIds.add(id))
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
          legacySteps: new Set(row.legacy_steps)
        } satisfies DagFacts
      }).pipe(Effect.orDie)

    const check = (principal: Principal, row: WorkflowRow) =>
      facts(principal, row, nodeTypes).pipe(
        Effect.map((f) => validateDag(row.dag_definition, f, nodeTypes))
      )

    return traced("DagChecks", { check })
  })
}) {}

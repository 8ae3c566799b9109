import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { answerOf, chatWorkflow, newSession, send } from "../support/Chat.js"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"
import { respondNode } from "../support/Workflows.js"

const api = "/api/v1/hcm-ticketing"

/** Ticketing and groups on; a Support group with a nested Tier 2, an agent in Tier 2, and an outsider. */
const setUp = Effect.gen(function*() {
  const admin = yield* adminToken
  const me = yield* http("GET", "/api/v1/auth/users/me", { token: admin })
  const tenantId = me.body.user.tenant_id as string
  const off = yield* http("GET", `${api}/queues`, { token: admin })
  yield* http("PATCH", `/api/v1/auth/tenants/${tenantId}/settings`, { token: admin, body: { user_groups_enabled: true, ticketing_enabled: true } })
  const suffix = Math.random().toString(36).slice(2, 8)
  const support = (yield* http("POST", "/api/v1/auth/groups", { token: admin, body: { name: `Support ${suffix}` } })).body.id as string
  const tier2 = (yield* http("POST", "/api/v1/auth/groups", { token: admin, body: { name: `Tier 2 ${suffix}`, parent_group_id: support } })).body.id as string
  const agent = yield* createMember(admin, "user")
  yield* http("POST", `/api/v1/auth/groups/${tier2}/members`, { token: admin, body: { user_id: agent.id } })
  const outsider = yield* createMember(admin, "user")
  return {
    admin,
    off,
    support,
    tier2,
    agent,
    agentToken: yield* loginToken(agent.email, agent.password),
    outsiderToken: yield* loginToken(outsider.email, outsider.password)
  }
})

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("ticketing", (it) => {
  it.effect("queues and tickets on the built-in desk: enablement, membership through nesting, every creation rule, the status table, closed tickets, moves, comments, the timeline", () =>
    Effect.gen(function*() {
      const s = yield* setUp
      assert.strictEqual(s.off.status, 404, "every route is 404 while ticketing is off")
      // Binding takes a group admin of the group (or a System Admin); a plain member is refused.
      assert.strictEqual((yield* http("POST", `${api}/groups/${s.support}/queue`, { token: s.agentToken, body: { name: "Nope" } })).status, 403)
      const bound = yield* http("POST", `${api}/groups/${s.support}/queue`, {
        token: s.admin,
        body: { name: "Customer Support", request_types: ["question", "incident"] }
      })
      assert.strictEqual(bound.status, 201, bound.text)
      assert.deepInclude(bound.body, { group_tag: "queue:customer-support", backend: "builtin", connection_id: null, group_archived: false })
      assert.strictEqual((yield* http("POST", `${api}/groups/${s.support}/queue`, { token: s.admin, body: { name: "Again" } })).body.code, "QUEUE_EXISTS")
      assert.strictEqual(
        (yield* http("POST", `${api}/groups/${s.tier2}/queue`, { token: s.admin, body: { name: "x", connection_id: "00000000-0000-4000-8000-000000000000" } }))
          .body.code,
        "CONNECTION_REQUIRED"
      )
      const lead = yield* createMember(s.admin, "user")
      yield* http("POST", `/api/v1/auth/groups/${s.tier2}/members`, { token: s.admin, body: { user_id: lead.id, is_group_admin: true } })
      const byLead = yield* http("POST", `${api}/groups/${s.tier2}/queue`, {
        token: yield* loginToken(lead.email, lead.password),
        body: { name: "Escalations" }
      })
      assert.strictEqual(byLead.status, 201, byLead.text)
      const routed = yield* http("PATCH", `${api}/groups/${s.support}/queue/routing`, {
        token: s.admin,
        body: { routing_description: "Billing and access problems" }
      })
      assert.deepInclude(routed.body, { routing_description: "Billing and access problems", name: "Customer Support", group_tag: "queue:customer-support" })
      // The agent is in Tier 2, nested in Support: a member of both queues.
      assert.sameMembers((yield* http("GET", `${api}/queues`, { token: s.agentToken })).body.queues.map((q: { group_id: string }) => q.group_id), [
        s.support,
        s.tier2
      ])
      assert.strictEqual((yield* http("GET", `${api}/groups/${s.support}/tickets`, { token: s.outsiderToken })).status, 403)
      assert.strictEqual((yield* http("GET", `${api}/groups/00000000-0000-4000-8000-000000000000/tickets`, { token: s.admin })).body.code, "GROUP_UNRESOLVABLE")

      const tickets = `${api}/groups/${s.support}/tickets`
      const raise = (body: Record<string, unknown>, token = s.agentToken) => http("POST", tickets, { token, body })
      const created = yield* raise({
        title: "Cannot log in",
        description: "Since Monday",
        priority: "high",
        type: "incident",
        tags: ["login", "queue:customer-support"],
        client_request_id: "req-1"
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.deepInclude(created.body, {
        status: "OPEN",
        priority: "HIGH",
        labels: ["login"],
        requester_email: (yield* http("GET", "/api/v1/auth/users/me", { token: s.agentToken })).body.user.email
      })
      // 50 parallel duplicates of one client_request_id make one ticket.
      const dupes = yield* Effect.all(Array.from({ length: 50 }, () => raise({ title: "dup", client_request_id: "req-2" })), { concurrency: 50 })
      assert.strictEqual(new Set(dupes.map((d) => d.body.id)).size, 1)
      assert.strictEqual((yield* raise({ title: "x", requester_email: "someone@else.test" })).body.code, "REQUESTER_NOT_ALLOWED")
      assert.strictEqual((yield* raise({ title: "x", requester_email: "someone@else.test" }, s.admin)).status, 201, "a System Admin may name another requester")
      assert.strictEqual((yield* raise({ title: "x", assignee_email: "ghost@nowhere.test" })).body.code, "ASSIGNEE_UNRESOLVABLE")
      assert.strictEqual((yield* raise({ title: "x", tags: ["queue:other"] })).body.code, "RESERVED_LABEL")
      assert.strictEqual((yield* raise({ title: "x", type: "feature" })).body.code, "TYPE_NOT_ACCEPTED")

      const one = `${tickets}/${created.body.id}`
      assert.strictEqual((yield* http("POST", `${one}/status`, { token: s.agentToken, body: { status: "IN_PROGRESS" } })).body.status, "IN_PROGRESS")
      assert.strictEqual((yield* http("POST", `${one}/status`, { token: s.agentToken, body: { status: "CLOSED" } })).body.code, "STATUS_NOT_ALLOWED")
      const patched = yield* http("PATCH", one, { token: s.agentToken, body: { priority: "critical", title: "Cannot log in (SSO)" } })
      assert.deepInclude(patched.body, { priority: "CRITICAL", title: "Cannot log in (SSO)" })
      const agentEmail = (yield* http("GET", "/api/v1/auth/users/me", { token: s.agentToken })).body.user.email
      assert.strictEqual((yield* http("POST", `${one}/assign`, { token: s.agentToken, body: { assignee_email: agentEmail } })).body.assignee_email, agentEmail)
      yield* http("POST", `${one}/comments`, { token: s.agentToken, body: { body: "Looking into it" } })
      yield* http("POST", `${one}/comments`, { token: s.agentToken, body: { body: "SSO cert expired", visibility: "internal" } })
      assert.deepStrictEqual((yield* http("GET", `${one}/comments`, { token: s.agentToken })).body.items.map((c: { visibility: string }) => c.visibility), [
        "public",
        "internal"
      ])
      const sub = yield* http("POST", `${one}/subtickets`, { token: s.agentToken, body: { title: "Renew the certificate" } })
      assert.strictEqual(sub.body.parent_ticket_id, created.body.id)
      assert.strictEqual((yield* http("GET", `${one}/children`, { token: s.agentToken })).body.items.length, 1)

      // Moving within the connection (the built-in desk) clears the assignee.
      const moved = yield* http("POST", `${one}/move`, { token: s.agentToken, body: { group_id: s.tier2 } })
      assert.deepInclude(moved.body, { group_id: s.tier2, group_tag: "queue:escalations", assignee_email: null })
      const there = `${api}/groups/${s.tier2}/tickets/${created.body.id}`
      assert.strictEqual((yield* http("GET", one, { token: s.agentToken })).status, 404)
      const closed = yield* http("POST", `${there}/close`, { token: s.agentToken, body: { resolution: "Certificate renewed" } })
      assert.deepInclude(closed.body, { status: "CLOSED", resolution: "Certificate renewed" })
      for (
        const [method, path, body] of [["POST", `${there}/close`, {}], ["PATCH", there, { title: "x" }], ["POST", `${there}/comments`, { body: "x" }], [
          "POST",
          `${there}/assign`,
          { assignee_email: null }
        ]] as const
      ) {
        const refused = yield* http(method, path, { token: s.agentToken, body })
        assert.strictEqual(refused.status, 409, `${method} ${path}`)
        assert.strictEqual(refused.body.code, "TICKET_CLOSED")
      }
      const events = (yield* http("GET", `${there}/events`, { token: s.agentToken })).body.items as Array<Record<string, unknown>>
      assert.deepStrictEqual(events.map((e) => `${e.kind}${e.field !== null ? `:${e.field}` : ""}`), [
        "create",
        "field_change:status",
        "field_change:title",
        "field_change:priority",
        "field_change:assignee",
        "comment",
        "work_note",
        "field_change:queue",
        "field_change:assignee",
        "field_change:status"
      ])
      assert.deepInclude(events[3], { old_value: "HIGH", new_value: "CRITICAL", actor: agentEmail, actor_type: "user" })
      assert.deepInclude(events.at(-1), { old_value: "IN_PROGRESS", new_value: "CLOSED" })
      assert.strictEqual((yield* http("DELETE", there, { token: s.agentToken })).status, 403)
      const big = yield* http("POST", tickets, { token: s.agentToken, body: { title: "big", description: "x".repeat(1024 * 1024 + 10) } })
      assert.strictEqual(big.status, 413)
      assert.strictEqual((yield* http("DELETE", there, { token: s.admin })).status, 204)
    }))

  it.effect("isolation: a client_request_id answers only its own queue's live ticket; only system keys name other requesters; a chunked body over 1 MiB is refused", () =>
    Effect.gen(function*() {
      const s = yield* setUp
      const platform = yield* TestPlatform
      yield* http("POST", `${api}/groups/${s.support}/queue`, { token: s.admin, body: { name: `Support ${Date.now()}` } })
      const other = (yield* http("POST", "/api/v1/auth/groups", { token: s.admin, body: { name: `Other ${Date.now()}` } })).body.id as string
      yield* http("POST", `${api}/groups/${other}/queue`, { token: s.admin, body: { name: `Other ${Date.now()}` } })
      const outsider = yield* createMember(s.admin, "user")
      yield* http("POST", `/api/v1/auth/groups/${other}/members`, { token: s.admin, body: { user_id: outsider.id } })
      const outsiderToken = yield* loginToken(outsider.email, outsider.password)

      const mine = yield* http("POST", `${api}/groups/${s.support}/tickets`, {
        token: s.agentToken,
        body: { title: "Private matter", client_request_id: "shared-key" }
      })
      assert.strictEqual(mine.status, 201, mine.text)
      const theirs = yield* http("POST", `${api}/groups/${other}/tickets`, { token: outsiderToken, body: { title: "Theirs", client_request_id: "shared-key" } })
      assert.strictEqual(theirs.status, 201, theirs.text)
      assert.notStrictEqual(theirs.body.id, mine.body.id, "another queue's ticket is never the answer")
      assert.strictEqual(theirs.body.title, "Theirs")
      assert.strictEqual((yield* http("DELETE", `${api}/groups/${s.support}/tickets/${mine.body.id}`, { token: s.admin })).status, 204)
      const again = yield* http("POST", `${api}/groups/${s.support}/tickets`, {
        token: s.agentToken,
        body: { title: "Asked again", client_request_id: "shared-key" }
      })
      assert.strictEqual(again.status, 201, again.text)
      assert.notStrictEqual(again.body.id, mine.body.id, "a deleted ticket is never the answer")

      // A user's own key is that user; a system key is a service principal.
      const userKey = (yield* http("POST", "/api/v1/auth/api-keys", { token: s.agentToken, body: { name: "mine" } })).body.key as string
      const byUserKey = yield* http("POST", `${api}/groups/${s.support}/tickets`, {
        apiKey: userKey,
        body: { title: "As someone", requester_email: "ceo@elsewhere.test" }
      })
      assert.strictEqual(byUserKey.status, 403, byUserKey.text)
      assert.strictEqual(byUserKey.body.code, "REQUESTER_NOT_ALLOWED")
      const systemKey = (yield* http("POST", "/api/v1/auth/api-keys", { token: s.admin, body: { name: "service", key_type: "system" } })).body.key as string
      const byService = yield* http("POST", `${api}/groups/${s.support}/tickets`, {
        apiKey: systemKey,
        body: { title: "For a customer", requester_email: "customer@elsewhere.test" }
      })
      assert.strictEqual(byService.status, 201, byService.text)
      const created = (yield* http("GET", `${api}/groups/${s.support}/tickets/${byService.body.id}/events`, { token: s.admin })).body.items[0]
      assert.strictEqual(created.actor_type, "service")

      // 2 MiB sent chunked (no Content-Length): counted, refused, nothing created.
      const before = (yield* http("GET", `${api}/groups/${s.support}/tickets?page_size=100`, { token: s.admin })).body.items.length as number
      const status = yield* Effect.promise(async () => {
        const big = JSON.stringify({ title: "huge", description: "x".repeat(2 * 1024 * 1024) })
        const body = new ReadableStream({
          start(controller) {
            for (let i = 0; i < big.length; i += 64 * 1024) controller.enqueue(new TextEncoder().encode(big.slice(i, i + 64 * 1024)))
            controller.close()
          }
        })
        const init = { method: "POST", headers: { authorization: `Bearer ${s.agentToken}`, "content-type": "application/json" }, body, duplex: "half" }
        const res = await fetch(`${platform.baseUrl}${api}/groups/${s.support}/tickets`, init as RequestInit)
        await res.arrayBuffer()
        return res.status
      })
      assert.strictEqual(status, 413)
      assert.strictEqual((yield* http("GET", `${api}/groups/${s.support}/tickets?page_size=100`, { token: s.admin })).body.items.length, before)
    }))

  it.effect("lists: exact filters, q, the created range, server-side sorts with sortable_by, cursors bound to their list, page sizes; /me/tickets by scope", () =>
    Effect.gen(function*() {
      const s = yield* setUp
      yield* http("POST", `${api}/groups/${s.support}/queue`, { token: s.admin, body: { name: "Desk" } })
      const tickets = `${api}/groups/${s.support}/tickets`
      const priorities = ["LOW", "CRITICAL", "MEDIUM", "HIGH", "LOW", "HIGH", "MEDIUM", "CRITICAL"]
      for (const [i, priority] of priorities.entries()) {
        yield* http("POST", tickets, {
          token: s.agentToken,
          body: { title: `Ticket ${i} ${i % 2 === 0 ? "printer" : "network"}`, priority, tags: i < 3 ? ["vip"] : [] }
        })
      }
      const all = (yield* http("GET", tickets, { token: s.agentToken })).body
      assert.strictEqual(all.items.length, 8)
      assert.deepStrictEqual(all.sortable_by, ["number", "priority", "status", "updated_at"])
      assert.strictEqual(all.items[0].title, "Ticket 7 network", "newest first without sort")
      const byPriority = (yield* http("GET", `${tickets}?sort=priority&order=asc&page_size=3`, { token: s.agentToken })).body
      assert.deepStrictEqual(byPriority.items.map((t: { priority: string }) => t.priority), ["CRITICAL", "CRITICAL", "HIGH"])
      const next = (yield* http("GET", `${tickets}?sort=priority&order=asc&page_size=3&cursor=${byPriority.next_cursor}`, { token: s.agentToken })).body
      assert.deepStrictEqual(next.items.map((t: { priority: string }) => t.priority), ["HIGH", "MEDIUM", "MEDIUM"])
      const replayed = yield* http("GET", `${tickets}?sort=number&page_size=3&cursor=${byPriority.next_cursor}`, { token: s.agentToken })
      assert.strictEqual(replayed.status, 422)
      assert.strictEqual(replayed.body.code, "INVALID_CURSOR")
      const badSort = yield* http("GET", `${tickets}?sort=title`, { token: s.agentToken })
      assert.strictEqual(badSort.status, 422)
      assert.deepStrictEqual(badSort.body.details[0].path, ["sort"])
      assert.strictEqual((yield* http("GET", `${tickets}?q=PRINTER`, { token: s.agentToken })).body.items.length, 4)
      assert.strictEqual((yield* http("GET", `${tickets}?label=vip`, { token: s.agentToken })).body.items.length, 3)
      assert.strictEqual((yield* http("GET", `${tickets}?priority=critical`, { token: s.agentToken })).body.items.length, 2)
      const future = new Date(Date.now() + 60_000).toISOString()
      assert.strictEqual((yield* http("GET", `${tickets}?created_after=${encodeURIComponent(future)}`, { token: s.agentToken })).body.items.length, 0)
      assert.strictEqual((yield* http("GET", `${tickets}?created_before=${encodeURIComponent(future)}`, { token: s.agentToken })).body.items.length, 8)
      assert.strictEqual((yield* http("GET", `${tickets}?page_size=500`, { token: s.agentToken })).body.items.length, 8)
      const mine = (yield* http("GET", `${api}/me/tickets?scope=created&q=network`, { token: s.agentToken })).body
      assert.strictEqual(mine.items.length, 4)
      assert.notProperty(mine, "sortable_by")
      assert.strictEqual((yield* http("GET", `${api}/me/tickets?scope=assigned`, { token: s.agentToken })).body.items.length, 0)
    }))

  it.effect("live_agent_transfer: a chat hands the conversation to the group's queue; the session is transferred; a group without a queue blocks publish", () =>
    Effect.gen(function*() {
      const s = yield* setUp
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "Let me get a colleague." }))
      const transfer = (groupId: string) => ({
        nodes: [respondNode("answer", "Help"), {
          id: "handoff",
          type: "live_agent_transfer",
          live_agent_transfer_config: { group_id: groupId, summary: "Customer needs a refund decision" }
        }],
        edges: [{ from: "answer", to: "handoff" }]
      })
      const blocked = yield* http("POST", "/api/v1/workflow/workflows", { token: s.admin, body: { name: "No queue yet", interaction_type: "chat" } })
      yield* http("PATCH", `/api/v1/workflow/workflows/${blocked.body.id}`, { token: s.admin, body: { dag_definition: transfer(s.support) } })
      const refused = yield* http("POST", `/api/v1/workflow/workflows/${blocked.body.id}/publish`, { token: s.admin })
      assert.strictEqual(refused.status, 422)
      assert.include(refused.body.details.map((d: { code: string }) => d.code), "TRANSFER_GROUP_NO_QUEUE")

      yield* http("POST", `${api}/groups/${s.support}/queue`, { token: s.admin, body: { name: "Refunds" } })
      const wf = yield* chatWorkflow(s.admin, transfer(s.support))
      const session = yield* newSession(s.admin, wf)
      const sent = yield* send(s.admin, session.id, { content: "I want my money back" })
      assert.strictEqual(sent.status, 202, sent.text)
      yield* answerOf(s.admin, session.id, sent.body.assistant_message_id)
      const queue = (yield* http("GET", `${api}/groups/${s.support}/tickets`, { token: s.admin })).body.items
      assert.strictEqual(queue.length, 1)
      assert.strictEqual(queue[0].title, "Customer needs a refund decision")
      assert.include(queue[0].description, "Customer: I want my money back")
      const events = (yield* http("GET", `${api}/groups/${s.support}/tickets/${queue[0].id}/events`, { token: s.admin })).body.items
      assert.deepInclude(events[0], { kind: "create", actor_type: "ai_employee" })
      const current = yield* http("GET", `/api/v1/chat/sessions/${session.id}`, { token: s.admin })
      assert.strictEqual(current.body.status, "transferred")
      const after = yield* send(s.admin, session.id, { content: "Hello?" })
      assert.strictEqual(after.status, 409)
      assert.strictEqual(after.body.code, "SESSION_TRANSFERRED")
    }))
})

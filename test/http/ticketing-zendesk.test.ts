import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { answerOf, chatWorkflow, newSession, send } from "../support/Chat.js"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { respondNode } from "../support/Workflows.js"
import { ZendeskServer } from "../support/ZendeskServer.js"

const api = "/api/v1/hcm-ticketing"
const env = { OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", TICKETING_TIMEOUT_SECONDS: "4" }

/** Ticketing and groups on, a Zendesk connection installed, two groups with an agent in both. */
const setUp = Effect.gen(function*() {
  const zendesk = yield* ZendeskServer
  zendesk.mode = "ok"
  const admin = yield* adminToken
  const me = yield* http("GET", "/api/v1/auth/users/me", { token: admin })
  const tenantId = me.body.user.tenant_id as string
  yield* http("PATCH", `/api/v1/auth/tenants/${tenantId}/settings`, { token: admin, body: { user_groups_enabled: true, ticketing_enabled: true } })
  const suffix = Math.random().toString(36).slice(2, 8)
  const support = (yield* http("POST", "/api/v1/auth/groups", { token: admin, body: { name: `Support ${suffix}` } })).body.id as string
  const billing = (yield* http("POST", "/api/v1/auth/groups", { token: admin, body: { name: `Billing ${suffix}` } })).body.id as string
  const agent = yield* createMember(admin, "user")
  for (const g of [support, billing]) yield* http("POST", `/api/v1/auth/groups/${g}/members`, { token: admin, body: { user_id: agent.id } })
  const entry = yield* http("POST", "/api/v1/integrations/catalog", { token: admin, body: { name: `zendesk-${suffix}`, category: "ticketing", functions: [] } })
  assert.strictEqual(entry.status, 201, entry.text)
  const connection = (yield* http("POST", "/api/v1/integrations/integrations", { token: admin, body: { catalog_id: entry.body.id } })).body.id as string
  const credentials = (c: Record<string, unknown>) =>
    http("PUT", `/api/v1/integrations/integrations/${connection}/credentials`, { token: admin, body: { capability: "agent_tool", credentials: c } })
  yield* credentials({ base_url: zendesk.baseUrl, email: zendesk.email, api_token: zendesk.token })
  return { zendesk, admin, support, billing, agent, agentToken: yield* loginToken(agent.email, agent.password), connection, credentials, suffix }
})

const Platform = Layer.merge(RunPlatformLive(env), ZendeskServer.layer)

layer(Platform, { excludeTestServices: true, timeout: "60 seconds" })("ticketing on a connected Zendesk", (it) => {
  it.effect("binding, raising, the status and priority maps, updates, comments, audits as the timeline, moves, sub-tickets, close and delete, all read live", () =>
    Effect.gen(function*() {
      const s = yield* setUp
      const bind = (group: string, body: Record<string, unknown>) => http("POST", `${api}/groups/${group}/queue`, { token: s.admin, body })
      assert.strictEqual((yield* bind(s.support, { name: "Desk", backend: "external" })).body.code, "CONNECTION_REQUIRED")
      const unknown = yield* bind(s.support, { name: "Desk", backend: "external", connection_id: "00000000-0000-4000-8000-000000000000" })
      assert.strictEqual(unknown.status, 422)
      assert.strictEqual(unknown.body.code, "CONNECTION_NOT_FOUND")
      const bound = yield* bind(s.support, { name: `Customer Care ${s.suffix}`, backend: "external", connection_id: s.connection })
      assert.strictEqual(bound.status, 201, bound.text)
      const created = s.zendesk.groups.find((g) => g.name === `Customer Care ${s.suffix}`)
      assert.isDefined(created, "a Zendesk group named like the queue is created when none exists")
      assert.deepInclude(bound.body, {
        backend: "external",
        connection_id: s.connection,
        external_group_id: created.id,
        request_types: ["problem", "incident", "question", "task"]
      })
      const other = yield* bind(s.billing, { name: "Billing", backend: "external", connection_id: s.connection, external_group_id: 500 })
      assert.strictEqual(other.body.external_group_id, 500, "an existing Zendesk group can be named")

      const tickets = `${api}/groups/${s.support}/tickets`
      const raised = yield* http("POST", tickets, {
        token: s.agentToken,
        body: {
          title: "Printer on fire",
          description: "Third floor",
          priority: "critical",
          type: "incident",
          tags: ["hardware", `queue:customer-care-${s.suffix}`],
          client_request_id: `zd-${s.suffix}`
        }
      })
      assert.strictEqual(raised.status, 201, raised.text)
      const zt = s.zendesk.tickets.get(Number(raised.body.id))!
      assert.deepInclude(zt, {
        subject: "Printer on fire",
        description: "Third floor",
        priority: "urgent",
        type: "incident",
        group_id: created.id,
        external_id: `zd-${s.suffix}`
      })
      assert.deepStrictEqual(zt.tags, ["hardware"], "the queue's own tag is dropped, not sent")
      assert.deepInclude(raised.body, {
        number: zt.id,
        status: "OPEN",
        priority: "CRITICAL",
        labels: ["hardware"],
        requester_email: s.agent.email.toLowerCase(),
        group_id: s.support
      })
      // 50 parallel duplicates of one client_request_id: one Zendesk ticket.
      const before = s.zendesk.tickets.size
      const dupes = yield* Effect.all(
        Array.from({ length: 50 }, () => http("POST", tickets, { token: s.agentToken, body: { title: "dup", client_request_id: `dup-${s.suffix}` } })),
        { concurrency: 50 }
      )
      assert.deepStrictEqual([...new Set(dupes.map((d) => d.status))], [201])
      assert.strictEqual(new Set(dupes.map((d) => d.body.id)).size, 1)
      assert.strictEqual(s.zendesk.tickets.size, before + 1)
      assert.strictEqual(
        (yield* http("POST", tickets, { token: s.agentToken, body: { title: "x", assignee_email: "ghost@nowhere.test" } })).body.code,
        "ASSIGNEE_UNRESOLVABLE"
      )
      assert.strictEqual((yield* http("POST", tickets, { token: s.agentToken, body: { title: "x", type: "feature" } })).body.code, "TYPE_NOT_ACCEPTED")
      assert.strictEqual(
        (yield* http("POST", tickets, { token: s.agentToken, body: { title: "x", requester_email: "someone@else.test" } })).body.code,
        "REQUESTER_NOT_ALLOWED"
      )

      const one = `${tickets}/${raised.body.id}`
      assert.strictEqual((yield* http("POST", `${one}/status`, { token: s.agentToken, body: { status: "IN_PROGRESS" } })).body.status, "IN_PROGRESS")
      assert.strictEqual(zt.status, "open")
      assert.strictEqual((yield* http("POST", `${one}/status`, { token: s.agentToken, body: { status: "HOLD" } })).body.status, "HOLD")
      assert.strictEqual(zt.status, "pending")
      assert.strictEqual((yield* http("POST", `${one}/status`, { token: s.agentToken, body: { status: "CLOSED" } })).body.code, "STATUS_NOT_ALLOWED")
      const patched = yield* http("PATCH", one, {
        token: s.agentToken,
        body: { title: "Printer on fire (floor 3)", priority: "low", tags: ["hardware", "facilities"] }
      })
      assert.deepInclude(patched.body, { title: "Printer on fire (floor 3)", priority: "LOW", labels: ["hardware", "facilities"] })
      assert.strictEqual(zt.priority, "low")
      assert.strictEqual((yield* http("PATCH", one, { token: s.agentToken, body: { description: "new text" } })).body.code, "FIELD_NOT_SUPPORTED")
      const assigned = yield* http("POST", `${one}/assign`, { token: s.agentToken, body: { assignee_email: "dana@acme.zendesk.test" } })
      assert.strictEqual(assigned.body.assignee_email, "dana@acme.zendesk.test")
      assert.strictEqual(
        (yield* http("POST", `${one}/assign`, { token: s.agentToken, body: { assignee_email: s.agent.email } })).body.code,
        "ASSIGNEE_UNRESOLVABLE",
        "on a connected queue the assignee is a Zendesk user"
      )
      const note = yield* http("POST", `${one}/comments`, { token: s.agentToken, body: { body: "Extinguisher used", visibility: "internal" } })
      assert.strictEqual(note.status, 201, note.text)
      assert.strictEqual(note.body.visibility, "internal")
      yield* http("POST", `${one}/comments`, { token: s.agentToken, body: { body: "We are on it" } })
      const comments = (yield* http("GET", `${one}/comments`, { token: s.agentToken })).body.items
      assert.deepStrictEqual(comments.map((c: { body: string; visibility: string }) => [c.body, c.visibility]), [["Third floor", "public"], [
        "Extinguisher used",
        "internal"
      ], ["We are on it", "public"]])
      assert.deepStrictEqual(s.zendesk.comments.get(zt.id)!.map((c) => c.public), [true, false, true])

      // History is read live: a change made in Zendesk by its own agent shows at once.
      s.zendesk.changeInZendesk(zt.id, 3, { priority: "high" })
      assert.strictEqual((yield* http("GET", one, { token: s.agentToken })).body.priority, "HIGH")
      const events = (yield* http("GET", `${one}/events`, { token: s.agentToken })).body.items as Array<Record<string, unknown>>
      assert.deepStrictEqual(events.map((e) => `${e.kind}${e.field !== null ? `:${e.field}` : ""}`), [
        "create",
        "field_change:status",
        "field_change:status",
        "field_change:title",
        "field_change:priority",
        "field_change:labels",
        "field_change:assignee",
        "work_note",
        "comment",
        "field_change:priority"
      ])
      assert.deepInclude(events[0], { actor: s.zendesk.email, actor_type: "service" })
      assert.deepInclude(events[1], { old_value: "OPEN", new_value: "IN_PROGRESS" })
      assert.deepInclude(events[2], { old_value: "IN_PROGRESS", new_value: "HOLD" })
      assert.deepInclude(events[4], { old_value: "CRITICAL", new_value: "LOW" })
      assert.deepInclude(events[6], { old_value: null, new_value: "dana@acme.zendesk.test" })
      assert.deepInclude(events.at(-1), { old_value: "LOW", new_value: "HIGH", actor: "eli@acme.zendesk.test", actor_type: "user" })

      const sub = yield* http("POST", `${one}/subtickets`, { token: s.agentToken, body: { title: "Replace the printer" } })
      assert.strictEqual(sub.status, 201, sub.text)
      assert.strictEqual(sub.body.parent_ticket_id, raised.body.id)
      assert.deepStrictEqual(sub.body.labels, [], "the platform's own tags are not labels")
      assert.deepStrictEqual((yield* http("GET", `${one}/children`, { token: s.agentToken })).body.items.map((t: { id: string }) => t.id), [sub.body.id])

      // A move stays on the connection (to the builtin desk it is refused) and clears the assignee.
      const builtinGroup = (yield* http("POST", "/api/v1/auth/groups", { token: s.admin, body: { name: `Local ${s.suffix}` } })).body.id as string
      yield* http("POST", `${api}/groups/${builtinGroup}/queue`, { token: s.admin, body: { name: "Local" } })
      assert.strictEqual((yield* http("POST", `${one}/move`, { token: s.admin, body: { group_id: builtinGroup } })).body.code, "CONNECTION_REQUIRED")
      const moved = yield* http("POST", `${one}/move`, { token: s.agentToken, body: { group_id: s.billing } })
      assert.deepInclude(moved.body, { group_id: s.billing, assignee_email: null })
      assert.deepInclude(zt, { group_id: 500, assignee_id: null })
      assert.strictEqual((yield* http("GET", one, { token: s.agentToken })).status, 404, "the ticket left the Support queue")
      const there = `${api}/groups/${s.billing}/tickets/${raised.body.id}`
      const timeline = (yield* http("GET", `${there}/events`, { token: s.agentToken })).body.items as Array<Record<string, unknown>>
      assert.deepInclude(timeline.find((e) => e.field === "queue"), { old_value: `queue:customer-care-${s.suffix}`, new_value: "queue:billing" })

      const closed = yield* http("POST", `${there}/close`, { token: s.agentToken, body: { resolution: "Printer replaced" } })
      assert.deepInclude(closed.body, { status: "CLOSED", resolution: "Printer replaced" })
      assert.strictEqual(zt.status, "solved")
      for (
        const [method, path, body] of [["POST", `${there}/close`, {}], ["PATCH", there, { title: "x" }], ["POST", `${there}/comments`, { body: "x" }], [
          "POST",
          `${there}/status`,
          { status: "OPEN" }
        ]] as const
      ) {
        const refused = yield* http(method, path, { token: s.agentToken, body })
        assert.strictEqual(refused.status, 409, `${method} ${path}`)
        assert.strictEqual(refused.body.code, "TICKET_CLOSED")
      }
      assert.strictEqual((yield* http("GET", `${tickets}/not-a-number`, { token: s.agentToken })).status, 404)
      assert.strictEqual((yield* http("GET", `${tickets}/99999999`, { token: s.agentToken })).status, 404)
      assert.strictEqual((yield* http("DELETE", there, { token: s.agentToken })).status, 403)
      assert.strictEqual((yield* http("DELETE", there, { token: s.admin })).status, 204)
      assert.isFalse(s.zendesk.tickets.has(zt.id))
    }))

  it.effect("lists through Zendesk search: filters, sorts it serves (number it does not), cursors; /me/tickets merges the built-in desk and Zendesk", () =>
    Effect.gen(function*() {
      const s = yield* setUp
      yield* http("POST", `${api}/groups/${s.support}/queue`, {
        token: s.admin,
        body: { name: `List ${s.suffix}`, backend: "external", connection_id: s.connection }
      })
      const tickets = `${api}/groups/${s.support}/tickets`
      const priorities = ["LOW", "CRITICAL", "MEDIUM", "HIGH", "LOW", "HIGH"]
      for (const [i, priority] of priorities.entries()) {
        yield* http("POST", tickets, {
          token: s.agentToken,
          body: { title: `Ticket ${i} ${i % 2 === 0 ? "printer" : "network"}`, priority, tags: i < 2 ? ["vip"] : [] }
        })
      }
      const all = (yield* http("GET", tickets, { token: s.agentToken })).body
      assert.strictEqual(all.items.length, 6)
      assert.deepStrictEqual(all.sortable_by, ["priority", "status", "updated_at"])
      assert.strictEqual(all.items[0].title, "Ticket 5 network", "newest first without sort")
      const numbered = yield* http("GET", `${tickets}?sort=number`, { token: s.agentToken })
      assert.strictEqual(numbered.status, 422)
      assert.strictEqual(numbered.body.code, "SORT_NOT_SUPPORTED")
      assert.deepStrictEqual(numbered.body.details[0].path, ["sort"])
      const byPriority = (yield* http("GET", `${tickets}?sort=priority&order=asc&page_size=4`, { token: s.agentToken })).body
      assert.deepStrictEqual(byPriority.items.map((t: { priority: string }) => t.priority), ["CRITICAL", "HIGH", "HIGH", "MEDIUM"])
      const rest = (yield* http("GET", `${tickets}?sort=priority&order=asc&page_size=4&cursor=${byPriority.next_cursor}`, { token: s.agentToken })).body
      assert.deepStrictEqual(rest.items.map((t: { priority: string }) => t.priority), ["LOW", "LOW"])
      assert.strictEqual(rest.next_cursor, null)
      assert.strictEqual(
        (yield* http("GET", `${tickets}?sort=status&page_size=4&cursor=${byPriority.next_cursor}`, { token: s.agentToken })).body.code,
        "INVALID_CURSOR"
      )
      assert.strictEqual((yield* http("GET", `${tickets}?q=printer`, { token: s.agentToken })).body.items.length, 3)
      assert.strictEqual((yield* http("GET", `${tickets}?label=vip`, { token: s.agentToken })).body.items.length, 2)
      assert.strictEqual((yield* http("GET", `${tickets}?priority=high`, { token: s.agentToken })).body.items.length, 2)
      assert.strictEqual((yield* http("GET", `${tickets}?status=OPEN`, { token: s.agentToken })).body.items.length, 6)
      assert.strictEqual((yield* http("GET", `${tickets}?status=HOLD`, { token: s.agentToken })).body.items.length, 0)
      const future = new Date(Date.now() + 365 * 86_400_000).toISOString()
      assert.strictEqual((yield* http("GET", `${tickets}?created_after=${encodeURIComponent(future)}`, { token: s.agentToken })).body.items.length, 0)
      assert.strictEqual((yield* http("GET", `${tickets}?created_before=${encodeURIComponent(future)}`, { token: s.agentToken })).body.items.length, 6)

      yield* http("POST", `${api}/groups/${s.billing}/queue`, { token: s.admin, body: { name: "Local billing" } })
      yield* http("POST", `${api}/groups/${s.billing}/tickets`, { token: s.agentToken, body: { title: "Local network invoice" } })
      const mine = (yield* http("GET", `${api}/me/tickets?scope=created&page_size=5`, { token: s.agentToken })).body
      assert.strictEqual(mine.items.length, 5)
      assert.strictEqual(mine.items[0].title, "Local network invoice", "the built-in ticket is the newest")
      const mineRest = (yield* http("GET", `${api}/me/tickets?scope=created&page_size=5&cursor=${mine.next_cursor}`, { token: s.agentToken })).body
      assert.strictEqual(mineRest.items.length, 2)
      assert.strictEqual((yield* http("GET", `${api}/me/tickets?scope=created&q=network`, { token: s.agentToken })).body.items.length, 4)
      assert.strictEqual((yield* http("GET", `${api}/me/tickets?scope=created&group=${s.support}`, { token: s.agentToken })).body.items.length, 6)
    }))

  it.effect("the connection's failures: its 403 is CONNECTION_FORBIDDEN, 5xx, 429 and timeouts 503 with Retry-After, refused credentials or a removed connection 424", () =>
    Effect.gen(function*() {
      const s = yield* setUp
      yield* http("POST", `${api}/groups/${s.support}/queue`, {
        token: s.admin,
        body: { name: `Faults ${s.suffix}`, backend: "external", connection_id: s.connection }
      })
      const tickets = `${api}/groups/${s.support}/tickets`
      const raised = (yield* http("POST", tickets, { token: s.agentToken, body: { title: "Slow" } })).body
      s.zendesk.mode = "forbidden"
      const forbidden = yield* http("GET", `${tickets}/${raised.id}`, { token: s.agentToken })
      assert.strictEqual(forbidden.status, 403)
      assert.strictEqual(forbidden.body.code, "CONNECTION_FORBIDDEN")
      s.zendesk.mode = "failing"
      const failing = yield* http("GET", tickets, { token: s.agentToken })
      assert.strictEqual(failing.status, 503)
      assert.strictEqual(failing.body.code, "BACKEND_UNAVAILABLE")
      assert.strictEqual(failing.headers.get("retry-after"), "7")
      s.zendesk.mode = "throttled"
      const throttled = yield* http("POST", tickets, { token: s.agentToken, body: { title: "x" } })
      assert.strictEqual(throttled.status, 503)
      assert.strictEqual(throttled.headers.get("retry-after"), "3")
      s.zendesk.mode = "stalled"
      const started = Date.now()
      const stalled = yield* http("GET", `${tickets}/${raised.id}`, { token: s.agentToken })
      assert.strictEqual(stalled.status, 503)
      assert.isAtLeast(Number(stalled.headers.get("retry-after")), 1)
      assert.isBelow(Date.now() - started, 9_000, "TICKETING_TIMEOUT_SECONDS (4 s here, 10 by default) bounds the call")
      s.zendesk.mode = "ok"
      yield* s.credentials({ base_url: s.zendesk.baseUrl, email: s.zendesk.email, api_token: "wrong" })
      const refused = yield* http("GET", `${tickets}/${raised.id}`, { token: s.agentToken })
      assert.strictEqual(refused.status, 424)
      assert.strictEqual(refused.body.code, "CONNECTION_UNAVAILABLE")
      yield* s.credentials({ base_url: s.zendesk.baseUrl, email: s.zendesk.email, api_token: s.zendesk.token })
      assert.strictEqual((yield* http("GET", `${tickets}/${raised.id}`, { token: s.agentToken })).status, 200)
      assert.strictEqual((yield* http("DELETE", `/api/v1/integrations/integrations/${s.connection}`, { token: s.admin })).status, 204)
      const removed = yield* http("GET", tickets, { token: s.agentToken })
      assert.strictEqual(removed.status, 424)
      assert.strictEqual(removed.body.code, "CONNECTION_UNAVAILABLE")
    }))

  it.effect("live_agent_transfer to a connected queue raises the Zendesk ticket with the transcript, once", () =>
    Effect.gen(function*() {
      const s = yield* setUp
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "Let me get a colleague." }))
      const queue = yield* http("POST", `${api}/groups/${s.support}/queue`, {
        token: s.admin,
        body: { name: `Handoff ${s.suffix}`, backend: "external", connection_id: s.connection }
      })
      const wf = yield* chatWorkflow(s.admin, {
        nodes: [respondNode("answer", "Help"), {
          id: "handoff",
          type: "live_agent_transfer",
          live_agent_transfer_config: { group_id: s.support, summary: "Refund decision needed" }
        }],
        edges: [{ from: "answer", to: "handoff" }]
      })
      const session = yield* newSession(s.admin, wf)
      const sent = yield* send(s.admin, session.id, { content: "I want my money back" })
      assert.strictEqual(sent.status, 202, sent.text)
      yield* answerOf(s.admin, session.id, sent.body.assistant_message_id)
      const raised = [...s.zendesk.tickets.values()].filter((t) => t.group_id === queue.body.external_group_id)
      assert.strictEqual(raised.length, 1)
      assert.strictEqual(raised[0].subject, "Refund decision needed")
      assert.include(raised[0].description, "Customer: I want my money back")
      const events = (yield* http("GET", `${api}/groups/${s.support}/tickets/${raised[0].id}/events`, { token: s.admin })).body.items
      assert.deepInclude(events[0], { kind: "create", actor_type: "ai_employee" })
      assert.strictEqual((yield* http("GET", `/api/v1/chat/sessions/${session.id}`, { token: s.admin })).body.status, "transferred")
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { credentialsOf } from "../../services/ticketing/zendesk/ZendeskApi.js"
import { priorityIn, priorityOut, searchQuery, searchSort, statusIn, statusOut, timelineOf } from "../../services/ticketing/zendesk/ZendeskMapping.js"

describe("the Zendesk connector's mapping (00-decisions section 10)", () => {
  it("maps status and priority both ways, every platform value surviving the round trip", () => {
    for (const status of ["OPEN", "IN_PROGRESS", "HOLD", "CLOSED"] as const) assert.strictEqual(statusIn(statusOut[status]), status)
    assert.deepStrictEqual(["new", "open", "pending", "hold", "solved", "closed"].map(statusIn), ["OPEN", "IN_PROGRESS", "HOLD", "HOLD", "CLOSED", "CLOSED"])
    for (const priority of ["CRITICAL", "HIGH", "MEDIUM", "LOW"] as const) assert.strictEqual(priorityIn(priorityOut[priority]), priority)
    assert.strictEqual(priorityIn(null), "MEDIUM", "a ticket without priority reads as the default")
  })

  it("builds the search of a list: group, every filter as its term, a status that stands for two Zendesk values as two terms", () => {
    const query = searchQuery([42], {
      status: "HOLD",
      priority: "CRITICAL",
      assignee_email: "Dana@Acme.test",
      label: "vip",
      q: "printer \"fire\"",
      created_after: new Date("2026-01-01T00:00:00Z"),
      created_before: new Date("2026-02-01T00:00:00Z")
    })
    assert.strictEqual(
      query,
      "type:ticket group:42 status:pending status:hold priority:urgent assignee:dana@acme.test tags:\"vip\" created>=2026-01-01T00:00:00.000Z created<2026-02-01T00:00:00.000Z \"printer  fire \""
    )
    assert.deepStrictEqual(searchSort({}), { sort_by: "created_at", sort_order: "desc" }, "newest first without sort")
    assert.deepStrictEqual(
      searchSort({ sort: "priority", order: "asc" }),
      { sort_by: "priority", sort_order: "desc" },
      "Critical first is Zendesk's highest first"
    )
    assert.deepStrictEqual(searchSort({ sort: "status", order: "desc" }), { sort_by: "status", sort_order: "desc" })
  })

  it("reads the timeline from audits with canonical values and actor types", () => {
    const at = "2026-01-01T00:00:00Z"
    const entries = timelineOf([
      {
        id: 1,
        author_id: 7,
        created_at: at,
        events: [{ type: "Create", field_name: "status", value: "new" }, { type: "Comment", body: "desc", public: true }]
      },
      {
        id: 2,
        author_id: 8,
        created_at: at,
        events: [{ type: "Change", field_name: "status", value: "open", previous_value: "new" }, {
          type: "Change",
          field_name: "assignee_id",
          value: 8,
          previous_value: null
        }]
      },
      {
        id: 3,
        author_id: 8,
        created_at: at,
        events: [{ type: "Comment", body: "note", public: false }, { type: "Change", field_name: "group_id", value: 2, previous_value: 1 }, {
          type: "Change",
          field_name: "custom_field_9",
          value: "x"
        }]
      },
      {
        id: 4,
        author_id: -1,
        created_at: at,
        events: [{ type: "Change", field_name: "tags", value: ["a", "platform_subticket_of_5"], previous_value: ["platform_subticket_of_5"] }]
      }
    ], { emails: new Map([[7, "svc@z.test"], [8, "dana@z.test"]]), serviceUserId: 7, groupTags: new Map([[1, "queue:one"]]), raisedByAiEmployee: false })
    assert.deepStrictEqual(entries.map((e) => [e.kind, e.field, e.old_value, e.new_value, e.actor, e.actor_type]), [
      ["create", null, null, null, "svc@z.test", "service"],
      ["field_change", "status", "OPEN", "IN_PROGRESS", "dana@z.test", "user"],
      ["field_change", "assignee", null, "dana@z.test", "dana@z.test", "user"],
      ["work_note", null, null, "note", "dana@z.test", "user"],
      ["field_change", "queue", "queue:one", "zendesk-group:2", "dana@z.test", "user"],
      ["field_change", "labels", "", "a", "Zendesk", "service"]
    ])
  })

  it("takes subdomain or base_url with email and api_token, and calls anything else misconfigured", () => {
    assert.deepStrictEqual(Either.getOrThrow(credentialsOf({ subdomain: "acme", email: "a@b.c", api_token: "t" })), {
      baseUrl: "https://acme.zendesk.com",
      email: "a@b.c",
      apiToken: "t"
    })
    assert.strictEqual(Either.getOrThrow(credentialsOf({ base_url: "http://127.0.0.1:9/", email: "a@b.c", api_token: "t" })).baseUrl, "http://127.0.0.1:9")
    for (const bad of [{}, { subdomain: "acme" }, { base_url: "not a url", email: "a", api_token: "t" }]) {
      const refused = credentialsOf(bad)
      assert.isTrue(Either.isLeft(refused))
      if (Either.isLeft(refused)) assert.strictEqual(refused.left.code, "CONNECTION_UNAVAILABLE")
    }
  })
})

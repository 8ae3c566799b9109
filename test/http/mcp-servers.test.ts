import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, type Json, loginToken } from "../support/Http.js"
import { MCP_CLIENT, MCP_TOKEN, mcpPeer } from "../support/McpPeer.js"
import { PEER_API_KEY, peerApi } from "../support/PeerApi.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { parseSse, waitForStatus } from "../support/Runs.js"
import { type ChatCompletionRequest, ScriptedModel } from "../support/ScriptedModel.js"
import { createWorkflow, publish, saveDag } from "../support/Workflows.js"

const api = "/api/v1/integrations"

const toolNames = (r: ChatCompletionRequest) => (r.tools as ReadonlyArray<{ function: { name: string } }> | undefined ?? []).map((t) => t.function.name)
const toolMessages = (r: ChatCompletionRequest) => (r.messages as unknown as ReadonlyArray<{ role: string; content?: string }>).filter((m) => m.role === "tool")

const customStep = (actionIds: ReadonlyArray<string>, mcpServerIds: ReadonlyArray<string>) => ({
  id: "agent",
  type: "agent",
  agent_config: { agent_type: "custom", type_version: "v1", system_prompt_template: "Use the tools.", action_ids: actionIds, mcp_server_ids: mcpServerIds }
})

const STDIO_SERVER = fileURLToPath(new URL("../fixtures/mcp-stdio-server.mjs", import.meta.url))

layer(RunPlatformLive({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.2", MCP_STDIO_COMMANDS: "node" }), { excludeTestServices: true, timeout: "60 seconds" })(
  "MCP servers",
  (it) => {
    it.scoped("register (pending_review), credentials sealed and rediscovered, both transports, admin lifecycle, guarded URLs", () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const peer = yield* mcpPeer
        const builder = yield* createMember(admin, "builder")
        const builderToken = yield* loginToken(builder.email, builder.password)
        const created = yield* http("POST", `${api}/mcp-servers`, {
          token: builderToken,
          body: { name: "Secure tools", server_url: `${peer.baseUrl}/secure/mcp`, transport: "streamable-http", auth_type: "bearer_token" }
        })
        assert.strictEqual(created.status, 201, created.text)
        assert.deepInclude(created.body, { status: "pending_review", has_credentials: false, tool_count: 0 })
        assert.isString(created.body.discovery_error, "without credentials the server refuses discovery")
        const id = created.body.id as string
        const patched = yield* http("PATCH", `${api}/mcp-servers/${id}`, { token: builderToken, body: { credentials: { token: MCP_TOKEN } } })
        assert.strictEqual(patched.status, 200, patched.text)
        assert.deepInclude(patched.body, { has_credentials: true, tool_count: 2, discovery_error: null })
        assert.notInclude(patched.text, MCP_TOKEN)
        assert.notInclude((yield* http("GET", `${api}/mcp-servers`, { token: builderToken })).text, MCP_TOKEN)
        const tools = yield* http("GET", `${api}/mcp-servers/${id}/tools`, { token: builderToken })
        assert.deepStrictEqual(tools.body.items.map((t: { name: string }) => t.name), ["echo", "explode"])
        assert.deepStrictEqual(tools.body.items[0].input_schema.required, ["text"])
        assert.strictEqual((yield* http("POST", `${api}/mcp-servers/${id}/refresh-tools`, { token: builderToken })).body.items.length, 2)

        const sse = yield* http("POST", `${api}/mcp-servers`, {
          token: builderToken,
          body: { name: "SSE tools", server_url: `${peer.baseUrl}/sse`, transport: "sse" }
        })
        assert.strictEqual(sse.status, 201, sse.text)
        assert.strictEqual(sse.body.tool_count, 2, sse.body.discovery_error)
        const broken = yield* http("POST", `${api}/mcp-servers`, {
          token: builderToken,
          body: { name: "Gone", server_url: `${peer.baseUrl}/nothing`, transport: "streamable-http" }
        })
        const refresh = yield* http("POST", `${api}/mcp-servers/${broken.body.id}/refresh-tools`, { token: builderToken })
        assert.strictEqual(refresh.status, 422)
        assert.strictEqual(refresh.body.code, "MCP_DISCOVERY_FAILED")

        // Tenants never start processes; tenant URLs never reach private addresses.
        const stdio = yield* http("POST", `${api}/mcp-servers`, { token: builderToken, body: { name: "Shell", server_url: "bash -c id", transport: "stdio" } })
        assert.strictEqual(stdio.status, 422)
        assert.strictEqual(stdio.body.code, "MCP_STDIO_NOT_ALLOWED")
        for (
          const url of [
            "http://127.0.0.1:9/mcp",
            "http://localhost:9/mcp",
            "http://[::1]:9/mcp",
            "http://[::ffff:127.0.0.1]:9/mcp",
            "http://169.254.169.254/mcp"
          ]
        ) {
          const refused = yield* http("POST", `${api}/mcp-servers`, { token: builderToken, body: { name: "x", server_url: url } })
          assert.strictEqual(refused.status, 422, url)
          assert.strictEqual(refused.body.code, "OUTBOUND_ADDRESS_REFUSED")
        }
        const moved = yield* http("PATCH", `${api}/mcp-servers/${id}`, { token: builderToken, body: { server_url: "http://10.0.0.8/mcp" } })
        assert.strictEqual(moved.status, 422)

        // Lifecycle: administrators only.
        assert.strictEqual((yield* http("POST", `${api}/mcp-servers/${id}/activate`, { token: builderToken })).status, 403)
        assert.strictEqual((yield* http("POST", `${api}/mcp-servers/${id}/enable`, { token: admin })).status, 409)
        assert.strictEqual((yield* http("POST", `${api}/mcp-servers/${id}/activate`, { token: admin })).body.status, "active")
        assert.strictEqual((yield* http("POST", `${api}/mcp-servers/${id}/disable`, { token: admin })).body.status, "disabled")
        assert.strictEqual((yield* http("POST", `${api}/mcp-servers/${id}/enable`, { token: admin })).body.status, "active")
        assert.strictEqual((yield* http("DELETE", `${api}/mcp-servers/${broken.body.id}`, { token: builderToken })).status, 204)
      }))

    it.scoped("a builder who re-points an approved server sends it back to review and never receives the token an administrator set", () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const peer = yield* mcpPeer
        const builder = yield* createMember(admin, "builder")
        const builderToken = yield* loginToken(builder.email, builder.password)
        const created = yield* http("POST", `${api}/mcp-servers`, {
          token: admin,
          body: { name: "Approved", server_url: `${peer.baseUrl}/secure/mcp`, auth_type: "bearer_token" }
        })
        const id = created.body.id as string
        yield* http("PATCH", `${api}/mcp-servers/${id}`, { token: admin, body: { credentials: { token: MCP_TOKEN } } })
        assert.deepInclude((yield* http("POST", `${api}/mcp-servers/${id}/activate`, { token: admin })).body, { status: "active", tool_count: 2 })

        const moved = yield* http("PATCH", `${api}/mcp-servers/${id}`, { token: builderToken, body: { server_url: `${peer.baseUrl}/user/mcp` } })
        assert.strictEqual(moved.status, 200, moved.text)
        assert.strictEqual(moved.body.status, "pending_review", "its tools are unusable until an administrator looks again")
        assert.strictEqual(
          (yield* http("POST", `${api}/mcp-servers/${id}/refresh-tools`, { token: builderToken })).status,
          422,
          "discovered without credentials"
        )
        assert.notInclude(peer.bearers, MCP_TOKEN, "the stored token never went to the new URL")
        const audit = yield* http("GET", "/api/v1/auth/audit-events?page_size=50", { token: admin })
        assert.include(audit.body.items.map((e: { action: string }) => e.action), "mcp_server.review_required")

        // Moved back where it was approved, the token goes there again; review is still needed.
        const back = yield* http("PATCH", `${api}/mcp-servers/${id}`, { token: builderToken, body: { server_url: `${peer.baseUrl}/secure/mcp` } })
        assert.deepInclude(back.body, { status: "pending_review", tool_count: 2, discovery_error: null })
        assert.strictEqual((yield* http("POST", `${api}/mcp-servers/${id}/activate`, { token: admin })).body.status, "active")
        const credentials = yield* http("PATCH", `${api}/mcp-servers/${id}`, { token: builderToken, body: { credentials: { token: "another" } } })
        assert.strictEqual(credentials.body.status, "pending_review", "new credentials need review too")
      }))

    it.scoped("a custom agent step calls an integration function and MCP tools end to end; publish checks use the registries; snapshots record the calls", () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const model = yield* ScriptedModel
        const mcp = yield* mcpPeer
        const orders = yield* peerApi("http://127.0.0.2:9/")
        const entry = yield* http("POST", `${api}/catalog/import-spec`, {
          token: admin,
          body: { name: `orders-${Date.now()}`, spec_url: `${orders.baseUrl}/openapi.yaml` }
        })
        const install = (yield* http("POST", `${api}/integrations`, { token: admin, body: { catalog_id: entry.body.id } })).body.id as string
        yield* http("PUT", `${api}/integrations/${install}/credentials`, {
          token: admin,
          body: { capability: "agent_tool", credentials: { api_key: PEER_API_KEY } }
        })
        const getOrder = (entry.body.functions as Array<{ id: string; name: string }>).find((f) => f.name === "getorder")!
        const server = (yield* http("POST", `${api}/mcp-servers`, { token: admin, body: { name: "Echo", server_url: `${mcp.baseUrl}/mcp` } })).body.id as string

        // Publish checks: a function not enabled, a pending server, an unknown server.
        const w = yield* createWorkflow(admin)
        const unknownServer = "00000000-0000-4000-8000-000000000001"
        yield* saveDag(admin, w.id, { nodes: [customStep([getOrder.id], [server, unknownServer])], edges: [] })
        const refused = yield* publish(admin, w.id)
        assert.strictEqual(refused.status, 422)
        assert.deepStrictEqual(refused.body.details.map((d: { code: string }) => d.code).sort(), [
          "MCP_SERVER_NOT_APPROVED",
          "MCP_SERVER_NOT_FOUND",
          "TOOL_NOT_FOUND"
        ])
        yield* http("POST", `${api}/integrations/${install}/functions/getorder/enable`, { token: admin })
        yield* http("POST", `${api}/mcp-servers/${server}/activate`, { token: admin })
        yield* saveDag(admin, w.id, { nodes: [customStep([getOrder.id], [server])], edges: [] })
        const published = yield* publish(admin, w.id)
        assert.strictEqual(published.status, 200, published.text)
        const inUse = yield* http("DELETE", `${api}/mcp-servers/${server}`, { token: admin })
        assert.strictEqual(inUse.status, 409)
        assert.strictEqual(inUse.body.code, "MCP_SERVER_IN_USE")

        model.setScript((r) => {
          const names = toolNames(r)
          const done = toolMessages(r)
          if (done.length > 0) return { text: `Done: ${done.map((m) => m.content).join(" | ")}` }
          return {
            toolCalls: [
              { id: "t1", name: names.find((n) => !n.startsWith("mcp_"))!, arguments: JSON.stringify({ id: "A-7" }) },
              { id: "t2", name: names.find((n) => n.endsWith("_echo"))!, arguments: JSON.stringify({ text: "hello" }) },
              { id: "t3", name: names.find((n) => n.endsWith("_explode"))!, arguments: "{}" }
            ]
          }
        })
        const run = (yield* http("POST", `/api/v1/workflow/workflows/${w.id}/run`, { token: admin, body: { input_params: {} } })).body.id as string
        const done = yield* waitForStatus(admin, run, ["completed", "failed"])
        assert.strictEqual(done.status, "completed", done.error)
        assert.include(done.output.text, "\"status\":\"shipped\"")
        assert.include(done.output.text, "echo: hello")
        assert.include(done.output.text, "the tool exploded")
        assert.deepStrictEqual(mcp.calls.map((c) => c.name), ["echo", "explode"])
        assert.strictEqual(orders.calls.filter((c) => c.url.startsWith("/orders/A-7")).length, 1)

        const snapshots = yield* http("GET", `/api/v1/workflow/runs/${run}/external-tool-snapshots`, { token: admin })
        const byName = Object.fromEntries((snapshots.body.items as Array<Record<string, Json>>).map((s) => [s.name, s]))
        assert.deepStrictEqual(Object.keys(byName).sort(), ["echo", "explode", "getorder"])
        assert.deepInclude(byName.getorder, { kind: "function", status: "success", input: { id: "A-7" } })
        assert.deepInclude(byName.echo, { kind: "mcp", status: "success", server_id: server, input: { text: "hello" } })
        assert.deepInclude(byName.explode, { kind: "mcp", status: "error", error: "the tool exploded" })
        assert.isNumber(byName.echo.duration_ms)
        // Each call is a step event on the run's stream.
        const events = parseSse((yield* http("GET", `/api/v1/workflow/runs/${run}/stream`, { token: admin })).text)
        const called = events.filter((e) => e.data.type === "tool_called").map((e) => e.data)
        assert.deepStrictEqual(called.map((e) => `${e.tool_source}:${e.call_status}`), ["integrations:success", "mcp:success", "mcp:error"])
        assert.isTrue(called.every((e) => e.node_id === "agent" && typeof e.duration_ms === "number"))

        // A dry run calls the read-only function but not the MCP tools (what they do is not declared).
        const dry = (yield* http("POST", `/api/v1/workflow/workflows/${w.id}/dry-run`, { token: admin, body: { input_params: {} } })).body.id as string
        assert.strictEqual((yield* waitForStatus(admin, dry, ["completed", "failed"])).status, "completed")
        assert.strictEqual(mcp.calls.length, 2, "no MCP call in the dry run")
        assert.strictEqual(orders.calls.filter((c) => c.url.startsWith("/orders/A-7")).length, 2)
      }))

    it.scoped("OAuth 2.0 client credentials fetch the server's token; a stdio server runs only as an operator-listed program", () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const peer = yield* mcpPeer
        const cc = yield* http("POST", `${api}/mcp-servers`, { token: admin, body: { name: "CC", server_url: `${peer.baseUrl}/cc/mcp`, auth_type: "oauth2" } })
        assert.isString(cc.body.discovery_error)
        const wrong = yield* http("PATCH", `${api}/mcp-servers/${cc.body.id}`, {
          token: admin,
          body: { credentials: { token_url: `${peer.baseUrl}/token`, client_id: MCP_CLIENT.id, client_secret: "wrong" } }
        })
        assert.include(wrong.body.discovery_error, "OAuth token")
        const right = yield* http("PATCH", `${api}/mcp-servers/${cc.body.id}`, {
          token: admin,
          body: { credentials: { token_url: `${peer.baseUrl}/token`, client_id: MCP_CLIENT.id, client_secret: MCP_CLIENT.secret } }
        })
        assert.deepInclude(right.body, { tool_count: 2, discovery_error: null })

        const stdio = yield* http("POST", `${api}/mcp-servers`, {
          token: admin,
          body: { name: "Local", server_url: `node ${STDIO_SERVER}`, transport: "stdio" }
        })
        assert.strictEqual(stdio.status, 201, stdio.text)
        assert.deepInclude(stdio.body, { tool_count: 1, discovery_error: null })
        assert.deepStrictEqual(
          (yield* http("GET", `${api}/mcp-servers/${stdio.body.id}/tools`, { token: admin })).body.items.map((t: { name: string }) => t.name),
          ["shout"]
        )
        const other = yield* http("POST", `${api}/mcp-servers`, {
          token: admin,
          body: { name: "Python", server_url: "python3 -m http.server", transport: "stdio" }
        })
        assert.strictEqual(other.body.code, "MCP_STDIO_NOT_ALLOWED")
      }))
  }
)

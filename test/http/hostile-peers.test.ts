import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { adminToken } from "../support/Fixtures.js"
import { flood } from "../support/Flood.js"
import { http } from "../support/Http.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { createWorkflow, publish, respondNode, saveDag } from "../support/Workflows.js"

const MB = 1024 * 1024
type Mode = "flood" | "lines" | "error" | "trickle" | "badjson" | "loop" | "mcpjson" | "mcpsse"

/**
 * A peer that misbehaves on purpose, on 127.0.0.2 (the only loopback address the platform's
 * outbound guard is told to allow): 50 MB in one line, 50 MB of well-formed events, a 50 MB
 * error body, one byte a second, JSON that does not parse, a redirect to itself. It counts the
 * bytes each answer got out before the platform hung up.
 */
const hostilePeer = Effect.acquireRelease(
  Effect.async<{ baseUrl: string; sent: Map<Mode, number>; close: () => void }>((resume) => {
    const sent = new Map<Mode, number>()
    const pump = (res: ServerResponse, mode: Mode, total: number, piece: () => string) =>
      flood(res, total, piece, (chars) => sent.set(mode, (sent.get(mode) ?? 0) + chars))
    const server = createServer((req, res) => {
      req.resume()
      const mode = (req.url ?? "").split("/")[1] as Mode
      switch (mode) {
        case "flood":
          res.writeHead(200, { "content-type": "text/event-stream" })
          return void pump(res, mode, 50 * MB, () => "data: " + "x".repeat(64 * 1024))
        case "lines": {
          res.writeHead(200, { "content-type": "text/event-stream" })
          const event = `data: ${
            JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "y".repeat(4000) }, finish_reason: null }] })
          }\n\n`
          return void pump(res, mode, 50 * MB, () => event.repeat(16))
        }
        case "error":
          res.writeHead(500, { "content-type": "text/plain" })
          return void pump(res, mode, 50 * MB, () => "e".repeat(64 * 1024))
        case "trickle": {
          res.writeHead(200, { "content-type": "text/event-stream" })
          const timer = setInterval(() => {
            res.write(":")
            sent.set(mode, (sent.get(mode) ?? 0) + 1)
          }, 1000)
          res.on("close", () => clearInterval(timer))
          return
        }
        case "badjson":
          res.writeHead(200, { "content-type": "text/event-stream" })
          res.end("data: {\"choices\": [{\"delta\": {\"content\": \"unterminated\n\ndata: [DONE]\n\n")
          return
        case "mcpjson":
          // An MCP server whose answer to `initialize` is one endless JSON string.
          res.writeHead(200, { "content-type": "application/json" })
          res.write(`{"jsonrpc":"2.0","id":0,"result":{"serverInfo":{"name":"`)
          return void pump(res, mode, 50 * MB, () => "z".repeat(64 * 1024))
        case "mcpsse": {
          res.writeHead(200, { "content-type": "text/event-stream" })
          const note = `event: message\ndata: ${
            JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "n".repeat(8000) } })
          }\n\n`
          return void pump(res, mode, 50 * MB, () => note.repeat(8))
        }
        case "loop":
          res.writeHead(302, { location: req.url ?? "/" }).end()
          return
        default:
          res.writeHead(404).end()
      }
    })
    server.listen(
      0,
      "127.0.0.2",
      () => resume(Effect.succeed({ baseUrl: `http://127.0.0.2:${(server.address() as AddressInfo).port}`, sent, close: () => server.close() }))
    )
  }),
  (peer) => Effect.sync(() => peer.close())
)

layer(RunPlatformLive({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.2", LLM_TIMEOUT_SECONDS: "2", MCP_DISCOVERY_TIMEOUT_SECONDS: "3" }), {
  excludeTestServices: true,
  timeout: "120 seconds"
})("hostile peers", (it) => {
  it.scoped("a tenant's model provider that floods, trickles, answers bad JSON or loops redirects fails the step in bounded time and memory; the platform stays up", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const peer = yield* hostilePeer
      for (const mode of ["flood", "lines", "error", "trickle", "badjson", "loop"] as const) {
        const provider = yield* http("POST", "/api/v1/workflow/llm-providers", {
          token,
          body: { name: `hostile-${mode}`, base_url: `${peer.baseUrl}/${mode}/v1`, models: [{ id: `m-${mode}` }] }
        })
        assert.strictEqual(provider.status, 201, provider.text)
        const w = yield* createWorkflow(token)
        yield* saveDag(token, w.id, { nodes: [respondNode("a")] })
        yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}/llm-config`, { token, body: { use_own_providers: true } })
        // Only this provider is enabled while its AI Employee runs.
        const others = (yield* http("GET", "/api/v1/workflow/llm-providers?page_size=100", { token })).body.items as Array<{ id: string; name: string }>
        for (const o of others) yield* http("PATCH", `/api/v1/workflow/llm-providers/${o.id}`, { token, body: { enabled: o.name === `hostile-${mode}` } })
        assert.strictEqual((yield* publish(token, w.id)).status, 200)
        const started = Date.now()
        const run = yield* startRun(token, w.id, {})
        const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"], 60_000)
        assert.strictEqual(done.status, "failed", `${mode}: ${JSON.stringify(done)}`)
        assert.isBelow(Date.now() - started, 45_000, `${mode}: bounded by LLM_TIMEOUT_SECONDS and the retries`)
        assert.isBelow(peer.sent.get(mode) ?? 0, 40 * MB, `${mode}: the platform stopped reading well before 50 MB`)
        assert.strictEqual((yield* http("GET", "/health")).status, 200, `${mode}: still up`)
      }
      assert.isBelow(peer.sent.get("trickle") ?? 0, 30, "a trickle is cut off by the time limit")
    }))

  it.scoped("a tenant's MCP server that floods its answers, never finishes initialize or loops redirects: discovery fails within the time limit, having read at most FUNCTION_MAX_RESPONSE_BYTES of an answer", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const peer = yield* hostilePeer
      for (const mode of ["mcpjson", "mcpsse", "badjson", "loop"] as const) {
        const started = Date.now()
        const created = yield* http("POST", "/api/v1/integrations/mcp-servers", {
          token,
          body: { name: `hostile ${mode}`, server_url: `${peer.baseUrl}/${mode}/mcp`, transport: "streamable-http" }
        })
        assert.strictEqual(created.status, 201, created.text)
        assert.strictEqual(created.body.tool_count, 0)
        assert.isString(created.body.discovery_error, mode)
        assert.isBelow(Date.now() - started, 6_000, `${mode}: within MCP_DISCOVERY_TIMEOUT_SECONDS (3 s here)`)
        assert.isBelow(peer.sent.get(mode) ?? 0, 8 * MB, `${mode}: read no further than the cap (and what was in flight)`)
        assert.strictEqual((yield* http("GET", "/health")).status, 200, `${mode}: still up`)
      }
    }))
})

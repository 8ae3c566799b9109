import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"

export const MCP_TOKEN = "mcp-secret-789"
export const MCP_CLIENT = { id: "mcp-client", secret: "mcp-client-secret" }
/** The token /token issues for the client credentials above; /cc/mcp wants it. */
const CLIENT_CREDENTIALS_TOKEN = "cc-token-from-the-token-endpoint"

export interface McpCall {
  readonly name: string
  readonly arguments: Record<string, unknown> | undefined
}

/** An MCP server (the SDK's own) with a tool that echoes and one that fails. */
const toolServer = (calls: Array<McpCall>) => {
  const server = new Server({ name: "peer-mcp", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, () =>
    Promise.resolve({
      tools: [
        { name: "echo", description: "Echoes its text", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
        { name: "explode", description: "Always fails", inputSchema: { type: "object", properties: {} } }
      ]
    }))
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    calls.push({ name: request.params.name, arguments: request.params.arguments })
    return Promise.resolve(
      request.params.name === "echo"
        ? { content: [{ type: "text" as const, text: `echo: ${String(request.params.arguments?.text)}` }] }
        : { content: [{ type: "text" as const, text: "the tool exploded" }], isError: true }
    )
  })
  return server
}

const readRaw = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = ""
    req.on("data", (c: Buffer) => (body += c.toString()))
    req.on("end", () => resolve(body))
  })

const readBody = (req: IncomingMessage) =>
  new Promise<unknown>((resolve) => {
    let body = ""
    req.on("data", (c: Buffer) => (body += c.toString()))
    req.on("end", () => resolve(body === "" ? undefined : JSON.parse(body)))
  })

/**
 * MCP over both HTTP transports on 127.0.0.2: streamable HTTP at /mcp, /secure/mcp (wants
 * `Authorization: Bearer MCP_TOKEN`) and /cc/mcp (wants the token /token issues for the client
 * credentials MCP_CLIENT) and /user/mcp (any bearer token, recorded in `bearers`), SSE at /sse with
 * its messages at /messages.
 */
export const mcpPeer = Effect.acquireRelease(
  Effect.async<{ baseUrl: string; calls: Array<McpCall>; bearers: Array<string>; close: () => void }>((resume) => {
    const calls: Array<McpCall> = []
    const bearers: Array<string> = []
    const sse = new Map<string, SSEServerTransport>()
    const http = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://peer")
      const handle = async () => {
        if (url.pathname === "/token" && req.method === "POST") {
          const form = new URLSearchParams(String(await readRaw(req)))
          const basic = `Basic ${Buffer.from(`${MCP_CLIENT.id}:${MCP_CLIENT.secret}`).toString("base64")}`
          const ok = form.get("grant_type") === "client_credentials" && req.headers.authorization === basic
          res.writeHead(ok ? 200 : 401, { "content-type": "application/json" })
          return res.end(JSON.stringify(ok ? { access_token: CLIENT_CREDENTIALS_TOKEN, token_type: "Bearer", expires_in: 3600 } : { error: "invalid_client" }))
        }
        if (url.pathname === "/user/mcp") {
          // Any bearer token: the test checks which one came.
          const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
          if (bearer === undefined) {
            res.writeHead(401, { "content-type": "application/json" })
            return res.end(JSON.stringify({ error: "unauthorized" }))
          }
          bearers.push(bearer)
          const transport = new StreamableHTTPServerTransport({})
          await toolServer(calls).connect(transport)
          return transport.handleRequest(req, res, req.method === "POST" ? await readBody(req) : undefined)
        }
        if (url.pathname === "/mcp" || url.pathname === "/secure/mcp" || url.pathname === "/cc/mcp") {
          const wanted = url.pathname === "/secure/mcp" ? MCP_TOKEN : url.pathname === "/cc/mcp" ? CLIENT_CREDENTIALS_TOKEN : undefined
          if (wanted !== undefined && req.headers.authorization !== `Bearer ${wanted}`) {
            res.writeHead(401, { "content-type": "application/json" })
            return res.end(JSON.stringify({ error: "unauthorized" }))
          }
          const transport = new StreamableHTTPServerTransport({})
          await toolServer(calls).connect(transport)
          return transport.handleRequest(req, res, req.method === "POST" ? await readBody(req) : undefined)
        }
        if (url.pathname === "/sse" && req.method === "GET") {
          const transport = new SSEServerTransport("/messages", res)
          sse.set(transport.sessionId, transport)
          res.on("close", () => sse.delete(transport.sessionId))
          return toolServer(calls).connect(transport)
        }
        if (url.pathname === "/messages" && req.method === "POST") {
          const transport = sse.get(url.searchParams.get("sessionId") ?? "")
          if (transport === undefined) {
            res.writeHead(404)
            return res.end()
          }
          return transport.handlePostMessage(req, res, await readBody(req))
        }
        res.writeHead(404)
        res.end()
      }
      handle().catch(() => {
        if (!res.headersSent) res.writeHead(500)
        res.end()
      })
    })
    http.listen(0, "127.0.0.2", () =>
      resume(Effect.succeed({
        baseUrl: `http://127.0.0.2:${(http.address() as AddressInfo).port}`,
        calls,
        bearers,
        close: () => {
          http.closeAllConnections()
          http.close()
        }
      })))
  }),
  (peer) => Effect.sync(() => peer.close())
)

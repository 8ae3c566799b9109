import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export const PEER_API_KEY = "peer-key-123"
export const PEER_TOKEN = "peer-bearer-456"
export const PEER_USER = { username: "ada", password: "lovelace" }

/** The OpenAPI document the peer serves at /openapi.yaml (YAML, with a $ref). */
export const peerSpec = (baseUrl: string) => `
openapi: 3.0.3
info: { title: Peer Orders, version: "1.0" }
servers: [{ url: "${baseUrl}" }]
components:
  securitySchemes:
    key: { type: apiKey, in: header, name: X-API-Key }
  schemas:
    NewOrder:
      type: object
      required: [item, quantity]
      properties:
        item: { type: string }
        quantity: { type: integer, minimum: 1 }
paths:
  /orders/{id}:
    get:
      operationId: getOrder
      summary: Read an order
      responses: { "200": { description: the order } }
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
        - { name: verbose, in: query, schema: { type: boolean } }
  /orders:
    post:
      operationId: createOrder
      summary: Place an order
      responses: { "201": { description: placed } }
      requestBody:
        content:
          application/json:
            schema: { $ref: "#/components/schemas/NewOrder" }
  /slow:
    get: { operationId: slow, responses: { "200": { description: late } } }
  /big:
    get: { operationId: big, responses: { "200": { description: huge } } }
  /hop:
    get: { operationId: hop, responses: { "307": { description: elsewhere } } }
`

/**
 * An HTTP API on loopback (127.0.0.2, which the tests allow): orders behind an API key, a bearer
 * token or basic auth; a slow, a huge and a redirecting operation; its own OpenAPI document.
 */
export const peerApi = (redirectTo: string) =>
  Effect.acquireRelease(
    Effect.async<{ baseUrl: string; calls: Array<{ method: string; url: string; body: string }>; close: () => void }>((resume) => {
      const calls: Array<{ method: string; url: string; body: string }> = []
      const server = createServer((req, res) => {
        let body = ""
        req.on("data", (c: Buffer) => (body += c.toString()))
        req.on("end", () => {
          const url = new URL(req.url ?? "/", "http://peer")
          calls.push({ method: req.method ?? "", url: req.url ?? "", body })
          const json = (status: number, value: unknown) => {
            res.writeHead(status, { "content-type": "application/json" })
            res.end(JSON.stringify(value))
          }
          const key = req.headers["x-api-key"] === PEER_API_KEY
          const bearer = req.headers.authorization === `Bearer ${PEER_TOKEN}`
          const basic = req.headers.authorization === `Basic ${Buffer.from(`${PEER_USER.username}:${PEER_USER.password}`).toString("base64")}`
          if (url.pathname === "/openapi.yaml") {
            res.writeHead(200, { "content-type": "application/yaml" })
            return res.end(peerSpec(`http://127.0.0.2:${(server.address() as AddressInfo).port}`))
          }
          if (url.pathname === "/slow") return void setTimeout(() => json(200, { slow: true }), 3000)
          if (url.pathname === "/big") return json(200, { blob: "x".repeat(2 * 1024 * 1024) })
          if (url.pathname === "/hop") {
            res.writeHead(307, { location: redirectTo })
            return res.end()
          }
          if (url.pathname === "/profile") return json(200, { authorization: req.headers.authorization ?? null })
          if (url.pathname === "/me") return basic ? json(200, { user: PEER_USER.username }) : json(401, { error: "basic auth required" })
          const order = /^\/orders\/([^/]+)$/.exec(url.pathname)
          if (req.method === "GET" && order !== null) {
            return key
              ? json(200, { id: decodeURIComponent(order[1]), verbose: url.searchParams.get("verbose"), status: "shipped" })
              : json(401, { error: "api key required" })
          }
          if (req.method === "POST" && url.pathname === "/orders") {
            if (!key && !bearer) return json(401, { error: "credential required" })
            return json(201, { id: "ord-9", ...(JSON.parse(body || "{}") as object) })
          }
          json(404, { error: "no such operation" })
        })
      })
      server.listen(0, "127.0.0.2", () =>
        resume(Effect.succeed({
          baseUrl: `http://127.0.0.2:${(server.address() as AddressInfo).port}`,
          calls,
          close: () => server.close()
        })))
    }),
    (peer) => Effect.sync(() => peer.close())
  )

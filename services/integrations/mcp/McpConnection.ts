import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { Data, Effect } from "effect"
import { type Dispatcher, fetch as undiciFetch } from "undici"
import { isRecord } from "../../../schemas/Records.js"

export class McpFailure extends Data.TaggedError("McpFailure")<{ readonly message: string }> {}

export interface McpEndpoint {
  readonly serverUrl: string
  readonly transport: "stdio" | "sse" | "streamable-http"
  /** Headers carrying the server's credentials (already resolved: an OAuth token fetched). */
  readonly headers: Record<string, string>
  /** Every connection goes through the outbound guard. */
  readonly dispatcher: Dispatcher
  readonly timeoutMs: number
  /** The most one HTTP answer of the server may carry (an event stream counts as one answer). */
  readonly maxResponseBytes: number
}

export interface DiscoveredTool {
  readonly name: string
  readonly description: string
  readonly input_schema: Record<string, unknown>
}

/** The programs of a stdio command line: the first word is the program. */
export const stdioCommand = (commandLine: string) => {
  const [command, ...args] = commandLine.trim().split(/\s+/)
  return { command: command ?? "", args }
}

const message = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ""
  return `${error.message}${cause}`
}

/** The response with a body that errors (and stops reading) once it passed `limit` bytes. */
const capped = (response: Response, limit: number): Response => {
  if (response.body === null) return response
  let seen = 0
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform: (chunk, controller) => {
      seen += chunk.byteLength
      if (seen > limit) controller.error(new Error(`The MCP server's answer is over ${limit} bytes`))
      else controller.enqueue(chunk)
    }
  })
  return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers })
}

/**
 * The MCP SDK, with the zod and ajv under it, is loaded at the first connection: imported with the
 * platform, it cost 0.2-0.3 s of CPU at every start, of every process, MCP servers or not.
 */
const loadSdk = Effect.promise(async () => {
  const [client, sse, stdio, http] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js")
  ])
  return {
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport
  }
})

type Sdk = Effect.Effect.Success<typeof loadSdk>

const transportOf = (
  { SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport }: Sdk,
  endpoint: McpEndpoint
): Transport => {
  if (endpoint.transport === "stdio") {
    const { command, args } = stdioCommand(endpoint.serverUrl)
    // A bare environment: the server process gets nothing of ours but PATH.
    return new StdioClientTransport({ command, args, env: { PATH: process.env.PATH ?? "" }, stderr: "ignore" })
  }
  const fetch = (url: string | URL, init?: RequestInit) =>
    (undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: endpoint.dispatcher }) as unknown as Promise<Response>)
      .then((response) => capped(response, endpoint.maxResponseBytes))
  const options = { requestInit: { headers: endpoint.headers }, fetch }
  return endpoint.transport === "sse"
    ? new SSEClientTransport(new URL(endpoint.serverUrl), options)
    : new StreamableHTTPClientTransport(new URL(endpoint.serverUrl), options)
}

/**
 * Connects, does `f` with the client, and closes, all within the endpoint's time limit. The
 * connection is made inside the interruptible part: a server that never finishes `initialize` is
 * cut off by the limit like one that never answers a call, and closing is bounded too.
 */
const session = <A>(endpoint: McpEndpoint, f: (client: Client) => Promise<A>) =>
  Effect.flatMap(loadSdk, (sdk) =>
    Effect.acquireUseRelease(
      Effect.sync(() => new sdk.Client({ name: "builder-platform", version: "1.0.0" })),
      (client) =>
        Effect.tryPromise({
          try: () => client.connect(transportOf(sdk, endpoint)),
          catch: (error) => new McpFailure({ message: `The MCP server could not be reached: ${message(error)}` })
        }).pipe(Effect.zipRight(Effect.tryPromise({ try: () => f(client), catch: (error) => new McpFailure({ message: message(error) }) }))),
      (client) => Effect.promise(() => client.close().catch(() => undefined)).pipe(Effect.timeout("1 second"), Effect.ignore)
    )).pipe(
      Effect.timeoutFail({
        duration: endpoint.timeoutMs,
        onTimeout: () => new McpFailure({ message: `The MCP server did not answer within ${endpoint.timeoutMs / 1000} s` })
      })
    )

/** Lists the server's tools (following `nextCursor`). */
export const discoverTools = (endpoint: McpEndpoint) =>
  session(endpoint, async (client) => {
    const tools: Array<DiscoveredTool> = []
    let cursor: string | undefined
    for (let page = 0; page < 20; page++) {
      const listed = await client.listTools(cursor === undefined ? {} : { cursor })
      for (const t of listed.tools) {
        tools.push({ name: t.name, description: t.description ?? "", input_schema: isRecord(t.inputSchema) ? t.inputSchema : { type: "object" } })
      }
      cursor = listed.nextCursor
      if (cursor === undefined) break
    }
    return tools
  })

/** Calls a tool; a result flagged `isError` is a failure carrying the tool's own text. */
export const callTool = (endpoint: McpEndpoint, name: string, args: Record<string, unknown>) =>
  session(endpoint, (client) => client.callTool({ name, arguments: args })).pipe(
    Effect.flatMap((result) => {
      const content = Array.isArray(result.content) ? result.content : []
      const text = content.flatMap((c) => (isRecord(c) && c.type === "text" && typeof c.text === "string" ? [c.text] : [])).join("\n")
      if (result.isError === true) return Effect.fail(new McpFailure({ message: text || "The tool reported an error" }))
      return Effect.succeed(isRecord(result.structuredContent) ? result.structuredContent : { text, content })
    })
  )

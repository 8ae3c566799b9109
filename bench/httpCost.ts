/**
 * What one HTTP request costs on the mandated stack against plain `node:http` (BENCH_ONLY=httpcost):
 * the same POST (a small JSON body in, a small JSON object out with 202) served by a bare
 * `node:http` handler and by a one-endpoint HttpApi server (payload and success schemas, as the
 * contract's endpoints have), each loaded by Node `fetch` in this process with BENCH_HTTP_CLIENTS
 * (32) requests in flight, BENCH_HTTP_REQUESTS (20,000) after as many to warm up, three rounds
 * alternating. CPU a request is this process's (server and client): a run started over HTTP pays
 * it once, on top of everything the run does.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { createServer, type Server } from "node:http"

const REQUESTS = Number(process.env.BENCH_HTTP_REQUESTS ?? 20_000)
const CLIENTS = Number(process.env.BENCH_HTTP_CLIENTS ?? 32)
const BODY = JSON.stringify({ input_params: { message: "hello" } })

const answer = () => ({ id: randomUUID(), status: "pending", created_at: new Date().toISOString() })

const StartPayload = Schema.Struct({ input_params: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
const StartedRun = Schema.Struct({ id: Schema.String, status: Schema.String, created_at: Schema.String })
class RunsGroup extends HttpApiGroup.make("runs").add(
  HttpApiEndpoint.post("start", "/runs").setPayload(StartPayload).addSuccess(StartedRun, { status: 202 })
) {}
class CostApi extends HttpApi.make("cost").add(RunsGroup) {}
const RunsLive = HttpApiBuilder.group(CostApi, "runs", (handlers) => handlers.handle("start", () => Effect.sync(answer)))

const portOf = (server: Server) => {
  const address = server.address()
  return typeof address === "object" && address !== null ? address.port : 0
}

/** REQUESTS posts with CLIENTS in flight: requests a second and this process's CPU a request. */
const load = (url: string) =>
  Effect.promise(async () => {
    let sent = 0
    const client = async () => {
      while (sent++ < REQUESTS) {
        const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: BODY })
        await response.json()
      }
    }
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    await Promise.all(Array.from({ length: CLIENTS }, client))
    const cpu = process.cpuUsage(cpu0)
    const seconds = (performance.now() - t0) / 1000
    return { perSecond: REQUESTS / seconds, cpuMs: (cpu.user + cpu.system) / 1000 / REQUESTS }
  })

const listening = (server: Server) =>
  Effect.acquireRelease(
    Effect.async<Server>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (s) =>
      Effect.async<void>((resume) => {
        s.close(() => resume(Effect.void))
      })
  )

const plainNode = Effect.scoped(Effect.gen(function*() {
  const server = yield* listening(createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      JSON.parse(Buffer.concat(chunks).toString("utf8"))
      response.writeHead(202, { "content-type": "application/json" }).end(JSON.stringify(answer()))
    })
  }))
  const url = `http://127.0.0.1:${portOf(server)}/runs`
  yield* load(url)
  return yield* load(url)
}))

const httpApi = Effect.scoped(Effect.gen(function*() {
  const server = createServer()
  const serve = HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.api(CostApi).pipe(Layer.provide(RunsLive))),
    Layer.provide(NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" }))
  )
  yield* Layer.build(serve)
  const url = `http://127.0.0.1:${portOf(server)}/runs`
  yield* load(url)
  return yield* load(url)
}))

const line = (name: string, r: { perSecond: number; cpuMs: number }) =>
  `  ${name}: ${r.perSecond.toFixed(0)} requests/s, CPU ${r.cpuMs.toFixed(3)} ms a request (server and client)`

export const httpCostBench = Effect.gen(function*() {
  const lines = [`HTTP cost: ${REQUESTS} POSTs after as many to warm up, ${CLIENTS} in flight, Node fetch in this process`]
  for (let round = 1; round <= 3; round++) {
    lines.push(line(`round ${round}, node:http`, yield* plainNode))
    lines.push(line(`round ${round}, HttpApi  `, yield* httpApi))
  }
  return lines
})

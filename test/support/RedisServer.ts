import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { freePort } from "../../platform/FreePort.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/**
 * A Redis server of the test's own (`redis-server` from PATH, nothing kept on disk) on a free
 * port, that the test may SIGKILL and start again on the same port; stopped with the scope.
 */
export const ownRedis = Effect.gen(function*() {
  const port = yield* freePort
  let child: ChildProcess | undefined
  const answers = Effect.promise(() =>
    import("node:net").then(({ connect }) =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, "127.0.0.1")
        socket.setTimeout(500, () => (socket.destroy(), resolve(false)))
        socket.once("error", () => resolve(false))
        socket.once("connect", () => socket.write("PING\r\n"))
        socket.once("data", (d) => (socket.destroy(), resolve(d.toString().startsWith("+PONG"))))
      })
    )
  )
  const start = Effect.gen(function*() {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" })
    for (let i = 0; i < 100; i++) {
      if (yield* answers) return
      yield* sleep(50)
    }
    return yield* Effect.dieMessage("redis-server did not start")
  })
  const kill = Effect.async<void>((resume) => {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill("SIGKILL")
  })
  yield* Effect.addFinalizer(() => kill)
  yield* start
  return { url: `redis://127.0.0.1:${port}`, start, kill }
})

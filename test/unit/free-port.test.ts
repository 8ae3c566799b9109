import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"

const tsx = path.resolve(import.meta.dirname, "../../node_modules/.bin/tsx")
const module = path.resolve(import.meta.dirname, "../../platform/FreePort.ts")

/** 150 ports asked for by another process at the same time as this one asks. */
const portsElsewhere = Effect.async<ReadonlyArray<number>>((resume) => {
  const script = `import("${module}").then(async ({ freePort }) => {
    const { Effect } = await import("effect")
    console.log(JSON.stringify(await Effect.runPromise(Effect.all(Array.from({ length: 150 }, () => freePort)))))
  })`
  execFile(tsx, ["--eval", script], (error, stdout) => {
    resume(error ? Effect.die(error) : Effect.succeed(JSON.parse(stdout) as ReadonlyArray<number>))
  })
})

describe("freePort", () => {
  it.effect("hands a port to one asker only, in this process and across processes on the machine", () =>
    Effect.gen(function*() {
      const [here, there] = yield* Effect.all([Effect.all(Array.from({ length: 150 }, () => freePort)), portsElsewhere], { concurrency: 2 })
      assert.strictEqual(new Set(here).size, 150)
      assert.strictEqual(new Set(there).size, 150)
      const both = here.filter((port) => there.includes(port))
      assert.deepStrictEqual(both, [])
      assert.ok(here.every((port) => port >= 20_000 && port <= 32_767))
    }), { timeout: 30_000 })
})

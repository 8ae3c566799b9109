import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { it as plain } from "vitest"
import { parse } from "yaml"
import { freePort } from "../../platform/FreePort.js"
import { apiOf, platformEnv } from "../support/ProcessPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { migratedDatabase } from "../support/TestDatabase.js"

const root = path.join(import.meta.dirname, "..", "..")
const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

const has = (command: string, args: ReadonlyArray<string>) => spawnSync(command, args, { stdio: "ignore" }).status === 0
const composeAvailable = has("docker-compose", ["version"])
// A new PID namespace: as root directly, else through a user namespace when the kernel allows it.
const unshareArgs = ["-fp", "--mount-proc"]
const unshare = has("unshare", [...unshareArgs, "true"]) ? unshareArgs : has("unshare", ["-r", ...unshareArgs, "true"]) ? ["-r", ...unshareArgs] : undefined
if (!composeAvailable) console.log("[container] docker-compose is not installed (apt-get install docker-compose): the compose file check is SKIPPED")
if (unshare === undefined) console.log("[container] unshare cannot make a PID namespace here: the PID 1 test is SKIPPED")

const dockerfile = readFileSync(path.join(root, "Dockerfile"), "utf8")
const instruction = (name: string) => dockerfile.split("\n").filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1))
const execForm = (name: string) => JSON.parse(instruction(name).at(-1)!) as Array<string>
// The image's init (tini) runs here from the host: without it the PID 1 test cannot start.
const initAvailable = existsSync(execForm("ENTRYPOINT")[0])
if (!initAvailable) console.log(`[container] ${execForm("ENTRYPOINT")[0]} is not installed (apt-get install tini): the PID 1 test is SKIPPED`)

interface ComposeService {
  readonly build?: unknown
  readonly image?: string
  readonly restart?: string
  readonly healthcheck?: { readonly test: ReadonlyArray<string> }
  readonly depends_on?: Record<string, { readonly condition: string }>
  readonly stop_grace_period?: string
  readonly environment?: Record<string, string | number>
  readonly profiles?: ReadonlyArray<string>
}

describe("container", () => {
  plain("the Dockerfile: multi-stage, a pruned install, a non-root user, tini as PID 1, a health check", () => {
    assert.isAtLeast(instruction("FROM").length, 3)
    assert.match(dockerfile, /npm ci --omit=dev/)
    assert.deepStrictEqual(instruction("USER"), ["node"])
    assert.match(dockerfile, /^HEALTHCHECK [^]*?\/health/m)
    assert.deepStrictEqual(execForm("ENTRYPOINT"), ["/usr/bin/tini", "--"])
    assert.strictEqual(execForm("CMD")[0], "node", "node itself, not npm or a shell, under tini")
  })

  plain.skipIf(!composeAvailable)(
    "docker-compose config: the default and scale profiles build the image, with health checks, depends_on conditions and restart policies",
    () => {
      const services = (parse(execFileSync("docker-compose", ["-f", path.join(root, "docker-compose.yml"), "config"], { encoding: "utf8" })) as {
        services: Record<string, ComposeService>
      }).services
      const inDefault = Object.entries(services).filter(([, s]) => s.profiles === undefined).map(([n]) => n)
      assert.sameMembers(inDefault, ["postgres", "redis", "jaeger", "platform"])
      for (const name of ["gateway", "runner-1", "runner-2", "runner-3"]) assert.deepStrictEqual(services[name]?.profiles, ["scale"], name)
      const scaled = services
      for (const name of ["platform", "gateway", "runner-1", "runner-2", "runner-3"]) {
        const service = services[name]
        assert.isDefined(service.build, `${name} builds the image`)
        assert.strictEqual(service.restart, "unless-stopped", name)
        assert.include(service.healthcheck?.test.join(" ") ?? "", "/ready", name)
        assert.strictEqual(service.depends_on?.postgres?.condition, "service_healthy", name)
        assert.strictEqual(service.depends_on?.redis?.condition, "service_healthy", name)
        // The drain (SHUTDOWN_GRACE_SECONDS) fits in the stop grace period, with room for the runs' stop.
        const grace = Number(/^(\d+)s$/.exec(service.stop_grace_period ?? "")?.[1] ?? "10")
        assert.isAtLeast(grace, Number(service.environment?.SHUTDOWN_GRACE_SECONDS ?? 10) + 10, name)
      }
      for (const dependency of ["postgres", "redis"]) assert.isDefined(scaled[dependency]?.healthcheck, dependency)
      assert.strictEqual(scaled["runner-2"]?.environment?.ROLE, "runners")
    }
  )
})

layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "120 seconds" })("container entrypoint", (it) => {
  it.scoped.skipIf(unshare === undefined || !initAvailable)(
    "the image's ENTRYPOINT and CMD as PID 1 of a new PID namespace: SIGTERM drains (a run in flight, an open stream) within the grace period",
    () =>
      Effect.gen(function*() {
        const db = yield* migratedDatabase
        const model = yield* ScriptedModel
        model.setScript(() => ({ text: "slow", delayMs: 30_000 }))
        const port = yield* freePort
        const env = {
          ...platformEnv("pid1", db.url, model.baseUrl),
          PORT: String(port),
          DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-pid1-")),
          LOG_FORMAT: "json"
        }
        const command = [...execForm("ENTRYPOINT"), ...execForm("CMD")]
        let output = ""
        const child = spawn("unshare", [...unshare!, ...command], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
        child.stdout.on("data", (c: Buffer) => (output += c.toString()))
        child.stderr.on("data", (c: Buffer) => (output += c.toString()))
        yield* Effect.addFinalizer(() => Effect.sync(() => spawnSync("pkill", ["-KILL", "-P", String(child.pid)])))
        const api = apiOf(`http://127.0.0.1:${port}`)
        const up = Effect.promise(() => fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false))
        for (let i = 0; i < 600 && !(yield* up); i++) yield* sleep(100)
        // PID 1 inside is tini (the namespace's init), its child node.
        const init = spawnSync("pgrep", ["-P", String(child.pid)], { encoding: "utf8" }).stdout.trim()
        assert.match(readFileSync(`/proc/${init}/status`, "utf8"), /NSpid:\s+\d+\s+1\n/)
        assert.include(readFileSync(`/proc/${init}/cmdline`, "utf8"), "tini")

        const token = (yield* api("POST", "/api/v1/auth/login", { email: "pid1@admin.test", password: "pid1-admin-password" })).body.access_token as string
        const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Slow" }, token)
        yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, {
          dag_definition: {
            nodes: [{ id: "a", type: "agent", name: "a", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "x" } }],
            edges: []
          }
        }, token)
        yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)
        const run = (yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/run`, { input_params: {} }, token)).body.id as string
        const stream = fetch(`http://127.0.0.1:${port}/api/v1/workflow/runs/${run}/stream`, { headers: { authorization: `Bearer ${token}` } })
          .then((r) => r.text().then(() => "ended" as const), () => "reset" as const)
        yield* sleep(1500)

        const signalled = Date.now()
        process.kill(Number(init), "SIGTERM")
        const code = yield* Effect.async<number | null>((resume) => {
          if (child.exitCode !== null) return resume(Effect.succeed(child.exitCode))
          child.once("exit", (c) => resume(Effect.succeed(c)))
        })
        const took = Date.now() - signalled
        assert.isBelow(took, 10_000, `stopped in ${took} ms: inside Docker's default 10 s and the compose file's 30 s stop_grace_period`)
        assert.include([0, 143], code, output.slice(-2000))
        assert.strictEqual(yield* Effect.promise(() => stream), "ended", "the open stream ended cleanly")
        assert.match(output, /Shutting down \(ROLE=all\)/)
        console.log(`[container] SIGTERM to exit with a run in flight and a stream open: ${took} ms`)
      })
  )
})

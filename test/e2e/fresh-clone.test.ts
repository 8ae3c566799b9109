import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import * as fs from "node:fs/promises"
import { tmpdir, userInfo } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { exec, exited, probe, signalGroup, type Started, startProcess, stoppedCleanly, waitForOutput, waitHealthy } from "../support/Processes.js"

const repo = path.resolve(import.meta.dirname, "../..")

/**
 * A clone of this repository as it is now: HEAD, plus the working tree's uncommitted changes and
 * new files (so that a developer's run tests what they are about to commit; on CI both are empty).
 */
const cloneInto = (target: string) =>
  Effect.promise(async () => {
    await exec("git", ["clone", "--quiet", "--no-hardlinks", repo, target])
    const { stdout: diff } = await exec("git", ["-C", repo, "diff", "HEAD", "--binary"], { maxBuffer: 64 * 1024 * 1024 })
    if (diff.length > 0) {
      const patch = path.join(path.dirname(target), "working-tree.patch")
      await fs.writeFile(patch, diff)
      await exec("git", ["-C", target, "apply", "--whitespace=nowarn", patch])
    }
    const { stdout: untracked } = await exec("git", ["-C", repo, "ls-files", "--others", "--exclude-standard", "-z"])
    for (const file of untracked.split("\0").filter((f) => f.length > 0)) {
      await fs.mkdir(path.dirname(path.join(target, file)), { recursive: true })
      await fs.copyFile(path.join(repo, file), path.join(target, file))
    }
  })

/**
 * The install `npm ci` makes, taken from this checkout's node_modules as hard links (seconds, not
 * the minute a second `npm ci` took: CI's own `npm ci` on a clean clone is the install's test),
 * with the console and the server its `prepare` script builds (copies of this checkout's builds:
 * each stamp holds the hash of what it was built from, so a clone of other sources still builds
 * its own at start).
 */
const installLike = (app: string) =>
  Effect.promise(async () => {
    const [from, to] = [path.join(repo, "node_modules"), path.join(app, "node_modules")]
    // Hard links need one file system; across two, a copy.
    await exec("cp", ["-al", from, to]).catch(async () => {
      await fs.rm(to, { recursive: true, force: true })
      await exec("cp", ["-a", from, to])
    })
    for (const dist of [["console", "dist"], ["dist"]]) {
      const built = path.join(repo, ...dist)
      if (await fs.stat(built).then(() => true, () => false)) await exec("cp", ["-a", built, path.join(app, ...dist)])
    }
  })

const baseEnv = (home: string): Record<string, string> => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home })

/** The port `npm start` uses with an empty environment, unless something here already holds it. */
const pickPort = Effect.gen(function*() {
  const busy = (yield* probe("http://127.0.0.1:8080/health", 1000)) !== "refused"
  return busy ? { port: yield* freePort, env: true } : { port: 8080, env: false }
})

const login = (base: string, password: string) =>
  Effect.promise(() =>
    fetch(`${base}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "admin@localhost", password })
    }).then((r) => r.status)
  )

const stop = (started: Started) =>
  Effect.gen(function*() {
    yield* signalGroup(started, "SIGTERM")
    yield* exited(started)
    assert.isTrue(stoppedCleanly(started), started.output())
  })

/**
 * `npm start` in the clone, stopped at the end of the test however it ends: a failed assertion
 * left the platform and its embedded PostgreSQL running (and holding port 8080) after the suite.
 */
const npmStart = (app: string, env: Record<string, string>, user?: { readonly uid: number; readonly gid: number }) =>
  Effect.acquireRelease(
    Effect.sync(() => startProcess("npm", ["start"], { cwd: app, env, ...user })),
    (started) => signalGroup(started, "SIGTERM").pipe(Effect.zipRight(exited(started)), Effect.catchAllCause(() => Effect.void))
  )

/** The README's quick-start commands, run as written (bash, in the clone) against the running platform. */
const runQuickStart = (dir: string, base: string, env: Record<string, string>) =>
  Effect.promise(async () => {
    const readme = await fs.readFile(path.join(dir, "README.md"), "utf8")
    const marker = readme.indexOf("<!-- quickstart:api -->")
    assert.isAtLeast(marker, 0, "the README marks its quick-start commands")
    const block = readme.slice(marker).split("```sh\n")[1].split("```")[0]
    const script = block.replace("BASE=http://127.0.0.1:8080", `BASE=${base}`)
    const { stdout } = await exec("bash", ["-euo", "pipefail", "-c", script], { cwd: dir, env, timeout: 60_000 })
    return stdout
  })

const dataOf = (dir: string) => path.join(dir, ".data")

describe("a newcomer's first start from a fresh clone", () => {
  it.scopedLive(
    "root or not, from a private (0700) directory: clone, install, npm start, the README's first steps, restart keeps the data",
    () =>
      Effect.gen(function*() {
        const root = mkdtempSync(path.join(tmpdir(), "bp-clone-"))
        assert.strictEqual(statSync(root).mode & 0o777, 0o700)
        const app = path.join(root, "builder-platform")
        yield* cloneInto(app)
        yield* installLike(app)
        const { port, env: needsPort } = yield* pickPort
        const base = `http://127.0.0.1:${port}`
        const env = { ...baseEnv(process.env.HOME ?? root), ...(needsPort ? { PORT: String(port) } : {}) }

        const first = yield* npmStart(app, env)
        const seen = yield* waitHealthy(base, first)
        // Connecting during startup is answered (503 until ready) or refused, never left hanging.
        assert.notInclude(seen, "timeout", first.output())
        assert.notInclude(seen, "reset", first.output())
        yield* waitForOutput(first, "Builder Platform is ready")
        const passwordFile = path.join(dataOf(app), "initial-admin-password")
        assert.strictEqual(statSync(passwordFile).mode & 0o777, 0o600)
        const password = readFileSync(passwordFile, "utf8").trim()
        assert.include(first.output(), password, "the password is printed once")
        assert.include(first.output(), `${base}/docs`)
        assert.include(first.output(), passwordFile)
        assert.strictEqual(yield* login(base, password), 200)

        const quick = yield* runQuickStart(app, base, env)
        assert.include(quick, "run_completed")
        assert.include(quick, "25 days of paid leave")
        yield* stop(first)

        const second = yield* npmStart(app, env)
        yield* waitHealthy(base, second)
        yield* waitForOutput(second, "Builder Platform is ready")
        assert.strictEqual(yield* login(base, password), 200, "the data survived the restart")
        assert.notInclude(second.output(), "Created the first admin")
        assert.include(second.output(), passwordFile, "the banner still says where the password is")
        yield* stop(second)

        const location = yield* Effect.promise(() => fs.readFile(path.join(dataOf(app), "pg-location"), "utf8").catch(() => undefined))
        if (userInfo().uid === 0) {
          // PostgreSQL runs as `postgres`, which cannot enter this private directory: its data lives elsewhere, recorded.
          assert.isDefined(location)
          assert.strictEqual(statSync(root).mode & 0o777, 0o700, "the user's directory keeps its permissions")
        }
        if (location !== undefined) rmSync(path.dirname(location.trim()), { recursive: true, force: true })
        rmSync(root, { recursive: true, force: true })
      }),
    400_000
  )

  it.scopedLive.runIf(userInfo().uid === 0)("as a normal user (nobody) in a private directory of theirs", () =>
    Effect.gen(function*() {
      const { stdout } = yield* Effect.promise(() => exec("id", ["-u", "nobody"]))
      const uid = Number(stdout.trim())
      const gid = Number((yield* Effect.promise(() => exec("id", ["-g", "nobody"]))).stdout.trim())
      const root = mkdtempSync(path.join(tmpdir(), "bp-user-"))
      const app = path.join(root, "builder-platform")
      yield* cloneInto(app)
      yield* installLike(app)
      // The user owns their tree; node_modules' files stay shared (read-only to them), its folders are theirs to write caches in.
      yield* Effect.promise(() =>
        exec("find", [root, "-path", path.join(app, "node_modules"), "-prune", "-o", "-exec", "chown", "-h", `${uid}:${gid}`, "{}", "+"])
      )
      yield* Effect.promise(() => exec("find", [path.join(app, "node_modules"), "-type", "d", "-exec", "chown", `${uid}:${gid}`, "{}", "+"]))
      const port = yield* freePort
      const base = `http://127.0.0.1:${port}`
      const env = { ...baseEnv(root), PORT: String(port) }
      const first = yield* npmStart(app, env, { uid, gid })
      yield* waitHealthy(base, first)
      const password = readFileSync(path.join(dataOf(app), "initial-admin-password"), "utf8").trim()
      assert.strictEqual(yield* login(base, password), 200)
      assert.strictEqual(statSync(path.join(dataOf(app), "pg", "PG_VERSION")).uid, uid, "the cluster is the user's own, in DATA_DIR/pg")
      yield* stop(first)
      const second = yield* npmStart(app, env, { uid, gid })
      yield* waitHealthy(base, second)
      assert.strictEqual(yield* login(base, password), 200)
      yield* stop(second)
      rmSync(root, { recursive: true, force: true })
    }), 200_000)
})

import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Option, Redacted, Scope } from "effect"
import { Redis } from "ioredis"
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import pg from "pg"
import { embeddedDatabase } from "../../platform/EmbeddedDatabase.js"

const DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/postgres"
const DEFAULT_REDIS = "redis://127.0.0.1:6379"

const answersPostgres = async (url: string) => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  client.on("error", () => undefined)
  return client.connect().then(() => client.end().then(() => true), () => false)
}

const answersRedis = async (url: string) => {
  const client = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 2000 })
  client.on("error", () => undefined)
  const ok = await client.connect().then(() => client.ping()).then(() => true, () => false)
  client.disconnect()
  return ok
}

const adminQuery = async (url: string, statement: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(statement).finally(() => client.end())
}

/**
 * A database with every migration applied, which the suites' databases copy (`migratedDatabase`):
 * migrating each suite's own empty database cost 2-4 s of each of about a hundred suites.
 */
const migratedTemplate = async (adminUrl: string) => {
  const name = `bp_template_${randomBytes(6).toString("hex")}`
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const { migrateAll } = await import("../../services/gateway/Migrations.js")
  await Effect.runPromise(migrateAll.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url.toString()) }))))
  // A database is copied only while nobody is connected to it.
  await adminQuery(adminUrl, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`)
  return name
}

/** This run's databases still there: copies made for files that never came, drops a worker's end cut short. */
const leftDatabases = async (url: string, prefix: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [prefix])
    .finally(() => client.end())
  return rows.map((r) => r.datname)
}

/** A test that failed midway may leave something mounted under the directory: what can go, goes. */
const removeLeftovers = (dir: string) => {
  const removed = spawnSync("rm", ["-rf", "--one-file-system", dir], { stdio: "ignore" })
  if (removed.status !== 0) say(`left behind in ${dir}: what could not be removed (still mounted?)`)
}

const say = (line: string) => process.stdout.write(`[test setup] ${line}\n`)

/**
 * Before any suite: a PostgreSQL for the suites' own databases (the one at
 * TEST_DATABASE_ADMIN_URL, else 127.0.0.1:5432, else an embedded one started here for the whole
 * run) and the answer to "is there a Redis?" (TEST_REDIS_URL, else 127.0.0.1:6379). Workers
 * inherit what is decided through the environment.
 */
export default async function setup() {
  const scope = Effect.runSync(Scope.make())
  // What the suites leave in the temp directory (the platforms' DATA_DIRs, clones, clusters,
  // Chromium's profiles) goes in one directory of this run's, removed at its end. Reachable by the
  // `postgres` account when we run as root, for the clusters under it.
  const runTmp = mkdtempSync(path.join(tmpdir(), "bp-suite-"))
  chmodSync(runTmp, 0o755)
  process.env.TMPDIR = runTmp
  // The platform processes the suites start (from this environment) start their worker threads
  // on demand: a warm thread loads every task module, about a second of CPU a process, and the
  // suite starts dozens. `fresh-clone` starts with an empty environment, so with the default.
  process.env.WORKER_WARM_THREADS ??= "0"
  // The suites sign in and create users hundreds of times: scrypt at its lowest cost (2^10 instead
  // of 2^15, milliseconds instead of a third of a second of CPU each). `fresh-clone` keeps the default.
  process.env.PASSWORD_HASH_COST ??= "10"
  await Effect.runPromise(Scope.addFinalizer(scope, Effect.sync(() => removeLeftovers(runTmp))))
  const explicit = process.env.TEST_DATABASE_ADMIN_URL
  if (explicit !== undefined) {
    if (!(await answersPostgres(explicit))) throw new Error(`TEST_DATABASE_ADMIN_URL (${explicit}) does not answer`)
  } else if (await answersPostgres(DEFAULT_DATABASE)) {
    process.env.TEST_DATABASE_ADMIN_URL = DEFAULT_DATABASE
  } else {
    const dataDir = mkdtempSync(path.join(tmpdir(), "bp-test-pg-"))
    // Reachable by the `postgres` account when we run as root, so the cluster stays in this directory.
    chmodSync(dataDir, 0o755)
    const db = await Effect.runPromise(
      embeddedDatabase({ dataDir, embeddedPostgresPort: Option.none(), startupTimeoutSeconds: 120 }).pipe(Scope.extend(scope))
    )
    process.env.TEST_DATABASE_ADMIN_URL = `postgres://${db.user}:${encodeURIComponent(db.password)}@${db.host}:${db.port}/${db.database}`
    say(`no PostgreSQL answers on 127.0.0.1:5432: started an embedded PostgreSQL for this run on port ${db.port}`)
    await Effect.runPromise(Scope.addFinalizer(scope, Effect.sync(() => rmSync(dataDir, { recursive: true, force: true }))))
  }
  const redis = process.env.TEST_REDIS_URL ?? DEFAULT_REDIS
  if (await answersRedis(redis)) {
    process.env.TEST_REDIS_URL = redis
    process.env.TEST_REDIS_AVAILABLE = "1"
  } else {
    process.env.TEST_REDIS_AVAILABLE = "0"
    say(
      `no Redis answers at ${redis}: the Redis adapter tests are SKIPPED; suites that need a bus across processes ` +
        "use the PostgreSQL LISTEN/NOTIFY bus instead"
    )
  }
  // The console the gateway serves (and the browser tests drive), built from its sources when they changed.
  const { buildConsole } = await import("../../scripts/build-console.mjs")
  if ((await buildConsole({ quiet: true })).built) say("built the console")
  // The platform's processes run from its compiled tree, as npm start runs them.
  const { buildServer } = await import("../../scripts/build-server.mjs")
  if ((await buildServer()).built) say("compiled the platform")
  // Set above in every case.
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE
  const template = await migratedTemplate(adminUrl)
  process.env.TEST_DATABASE_TEMPLATE = template
  // The suites' databases are named under this (TestDatabase.ts), so that what a worker's end left
  // is dropped below, and only this run's.
  const prefix = `bp_test_${randomBytes(4).toString("hex")}_`
  process.env.TEST_DATABASE_PREFIX = prefix
  const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
  if (existsSync(chromium)) {
    process.env.TEST_CHROMIUM_PATH = chromium
  } else {
    process.env.TEST_CHROMIUM_PATH = ""
    say(`no Chromium at ${chromium} (apt-get install chromium, or set CHROMIUM_PATH): the console's browser tests are SKIPPED`)
  }
  if (spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0) {
    process.env.TEST_REDIS_SERVER = "1"
  } else {
    process.env.TEST_REDIS_SERVER = "0"
    say("no redis-server on PATH: the tests that start a Redis of their own (Redis outage, the Redis part of network faults) are SKIPPED")
  }
  return async () => {
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
    for (const name of await leftDatabases(adminUrl, prefix)) await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import pg from "pg"

/** Set by GlobalSetup.ts: the PostgreSQL this run creates its databases on. */
export const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** Set by GlobalSetup.ts: the start of this run's database names (what is left of them goes at its end). */
const PREFIX = process.env.TEST_DATABASE_PREFIX ?? "bp_test_"

/** One statement (or several, as one string) on a connection of its own to `url`. */
export const runStatement = async (url: string, statement: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

const adminQuery = (statement: string) => runStatement(ADMIN_URL, statement)

interface Database {
  readonly name: string
  readonly url: string
}

const make = async (template: string | undefined): Promise<Database> => {
  const name = `${PREFIX}${randomBytes(6).toString("hex")}`
  await adminQuery(template === undefined || template === "" ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${template}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return { name, url: url.toString() }
}

/** Set by GlobalSetup.ts: a database with every migration applied, made once for the run. */
const TEMPLATE = process.env.TEST_DATABASE_TEMPLATE

/**
 * The next copy of the template, made while the current file's tests run: a worker runs its files
 * one after another with this module loaded once, and a copy takes PostgreSQL 0.5-0.9 s (mostly
 * fsync) that a file would otherwise wait for before its first test.
 */
let spare: Promise<Database> | undefined

const prepareSpare = () => {
  spare = make(TEMPLATE)
  // A failed copy is made again by the file that takes it.
  spare.catch(() => undefined)
}

const takeMigrated = async (): Promise<Database> => {
  const ready = spare
  spare = undefined
  const db = ready === undefined ? await make(TEMPLATE) : await ready.catch(() => make(TEMPLATE))
  prepareSpare()
  return db
}

/**
 * Dropped without the file waiting (0.1-0.4 s): it is no longer used. A drop the worker's end cut
 * short is finished by GlobalSetup's teardown, which drops what is left under this run's prefix.
 */
const dropLater = ({ name }: Database) => Effect.sync(() => void adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined))

/** An empty database of the suite's own on the real server, dropped when the scope closes. */
export const testDatabase = Effect.acquireRelease(Effect.promise(() => make(undefined)), dropLater)

/**
 * A database of the suite's own with every migration applied: a copy of the run's template, where
 * migrating an empty one took 2-4 s of each suite. Whoever starts on it still runs the migrations,
 * which find nothing to do.
 */
export const migratedDatabase = Effect.acquireRelease(Effect.promise(takeMigrated), dropLater)

import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import pg from "pg"

/** Set by GlobalSetup.ts: the PostgreSQL this run creates its databases on. */
export const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const admin = (statement: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  })

/** Set by GlobalSetup.ts: a database with every migration applied, made once for the run. */
const TEMPLATE = process.env.TEST_DATABASE_TEMPLATE

const created = (template: string | undefined) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const name = `bp_test_${randomBytes(6).toString("hex")}`
      yield* admin(template === undefined || template === "" ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${template}`)
      const url = new URL(ADMIN_URL)
      url.pathname = `/${name}`
      return { name, url: url.toString() }
    }),
    ({ name }) => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  )

/** An empty database of the suite's own on the real server, dropped when the scope closes. */
export const testDatabase = created(undefined)

/**
 * A database of the suite's own with every migration applied: a copy of the run's template
 * (about a second), where migrating an empty one took 2-4 s of each suite. Whoever starts on
 * it still runs the migrations, which find nothing to do.
 */
export const migratedDatabase = created(TEMPLATE)

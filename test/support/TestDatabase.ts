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

/** A database of the suite's own on the real server, dropped when the scope closes. */
export const testDatabase = Effect.acquireRelease(
  Effect.gen(function*() {
    const name = `bp_test_${randomBytes(6).toString("hex")}`
    yield* admin(`CREATE DATABASE ${name}`)
    const url = new URL(ADMIN_URL)
    url.pathname = `/${name}`
    return { name, url: url.toString() }
  }),
  ({ name }) => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
)

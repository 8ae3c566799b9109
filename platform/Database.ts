import { Reactivity } from "@effect/experimental"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import pg from "pg"
import { AppConfig } from "./Config.js"
import { embeddedDatabase } from "./EmbeddedDatabase.js"
import { GenericPlanPool, PgPool, PreparedSql } from "./PreparedSql.js"
import { retryStartup, rootReason } from "./StartupRetry.js"

const APPLICATION = "builder-platform"
const CONNECT_TIMEOUT = Duration.seconds(5)

/** A `pg` pool of ours, ended with its scope. */
const makePool = (config: pg.PoolConfig) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new pg.Pool(config)
      pool.on("error", () => {})
      pool.on("release", discardIfBusy)
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption(1000))
  )

/** Statements on the generic-plan pool at once at most: the group commits' writers (journal and run starts, two each). */
const GENERIC_PLAN_CONNECTIONS = 4

/**
 * The pool behind the SQL client, ours so that the run journal can use named prepared statements
 * on it (see PreparedSql), and a small second one whose sessions always use generic plans
 * (PreparedSql.queryGeneric); a first `SELECT 1` proves the server answers.
 */
const connect = (options: pg.PoolConfig, timeouts: ConnectionSettings) =>
  Effect.gen(function*() {
    const common: pg.PoolConfig = {
      application_name: APPLICATION,
      // Kept for minutes, not pg's 10 s: a new connection plans its first statements over the
      // partitioned run tables cold (their partitions' catalog entries loaded: ~30 ms more a statement).
      idleTimeoutMillis: 5 * 60_000,
      connectionTimeoutMillis: Duration.toMillis(CONNECT_TIMEOUT),
      // A statement with no answer (a half-open connection, a server gone silent) fails after this.
      query_timeout: timeouts.querySeconds * 1000,
      ...options
    }
    const pool = yield* makePool({ ...common, max: timeouts.poolSize, onConnect: (client) => configureSession(client, timeouts) })
    const genericPool = yield* makePool({
      ...common,
      max: GENERIC_PLAN_CONNECTIONS,
      onConnect: (client) => configureSession(client, timeouts).then(() => client.query("SET plan_cache_mode = force_generic_plan")).then(() => {}, () => {})
    })
    yield* Effect.tryPromise({
      try: () => pool.query("SELECT 1"),
      catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
    }).pipe(Effect.timeoutFail({
      duration: CONNECT_TIMEOUT,
      onTimeout: () => new SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
    }))
    const client = yield* PgClient.fromPool({ acquire: Effect.succeed(pool), applicationName: APPLICATION })
    return Context.make(PgClient.PgClient, client).pipe(
      Context.add(SqlClient.SqlClient, client),
      Context.add(PgPool, pool),
      Context.add(GenericPlanPool, genericPool)
    )
  })

interface PoolClientInternals {
  _queryable?: boolean
  _getActiveQuery?: () => unknown
  connection?: { stream?: { destroy: () => void } }
}

/**
 * @effect/sql-pg stops an interrupted statement with `pg_cancel_backend(<pid>)` sent on another
 * connection, but hands the client back to the pool as soon as the statement answers, which can be
 * before the cancel arrives: PostgreSQL then cancels what that backend runs next, another request's
 * statement (a 500 for a request that did nothing wrong; Effect-TS/effect#8068). Without a process id
 * the library sends no cancel and hands the client back at once; `discardIfBusy` closes it (its
 * statement still runs) and PostgreSQL stops the abandoned statement when it finds the connection
 * closed (`client_connection_check_interval`, PostgreSQL 14 on; an older server runs it to its end).
 */
const configureSession = async (client: pg.ClientBase, timeouts: ConnectionSettings) => {
  ;(client as unknown as { processID: number | null | undefined }).processID = undefined
  // The pool hands the client out once these settle; a server before 14 refuses the first.
  await client.query(`SET client_connection_check_interval = ${CONNECTION_CHECK_MS}`).catch(() => undefined)
  await client.query(`SET idle_in_transaction_session_timeout = ${timeouts.idleInTransactionSeconds * 1000}`).catch(() => undefined)
}
const CONNECTION_CHECK_MS = 1000

/**
 * `querySeconds`: a statement with no answer fails after it. `idleInTransactionSeconds` (the
 * runners' lease): PostgreSQL ends a session left inside a transaction without a statement for
 * longer, so that a process that stopped (frozen, a VM paused) mid-transaction does not keep its
 * row locks: a schedule it was firing, a claim, a run's rows stay theirs to take. The platform
 * holds no transaction open across anything but its own statements.
 */
interface ConnectionSettings {
  readonly querySeconds: number
  readonly idleInTransactionSeconds: number
  /** The main pool's connections at most (DATABASE_POOL_SIZE). */
  readonly poolSize: number
}

/**
 * A client handed back while its statement still runs (it timed out, or the fiber that ran it was
 * interrupted) may sit on a dead connection whose answer never comes: it is closed and dropped
 * from the pool (which drops clients that are not `_queryable`) instead of being handed out again.
 */
const discardIfBusy = (_error: unknown, client: pg.PoolClient) => {
  const internals = client as unknown as PoolClientInternals
  if (internals._getActiveQuery?.() === null || internals._getActiveQuery?.() === undefined) return
  internals._queryable = false
  internals.connection?.stream?.destroy()
}

const describe = (url: Redacted.Redacted) => {
  const parsed = new URL(Redacted.value(url))
  return { address: `${parsed.hostname}:${parsed.port || "5432"}`, database: parsed.pathname.slice(1) || parsed.username }
}

/** Wrong credentials and a missing database will not fix themselves; anything else may (the server is starting). */
const classify = (url: Redacted.Redacted) => (error: SqlError) => {
  const { code, message } = rootReason(error)
  const { address, database } = describe(url)
  switch (code) {
    case "28P01":
    case "28000":
      return {
        reason: code,
        retryable: false,
        fatal: `PostgreSQL at ${address} refused the credentials in DATABASE_URL (${message}): fix the user or password in DATABASE_URL.`
      }
    case "3D000":
      return {
        reason: code,
        retryable: false,
        fatal: `The database "${database}" does not exist on ${address}: create it (createdb ${database}) or fix DATABASE_URL.`
      }
    default:
      return { reason: code ?? message, retryable: true }
  }
}

const connectUrl = (url: Redacted.Redacted, timeoutSeconds: number, timeouts: ConnectionSettings) =>
  retryStartup({
    what: `PostgreSQL at ${describe(url).address}`,
    timeoutSeconds,
    attempt: connect({ connectionString: Redacted.value(url) }, timeouts),
    classify: classify(url),
    giveUp: (reason) =>
      `PostgreSQL at ${describe(url).address} did not answer within ${timeoutSeconds} s (${reason}): ` +
      `start it, fix DATABASE_URL, or unset DATABASE_URL to use the embedded PostgreSQL.`
  })

const ConnectionLive = Layer.scopedContext(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const timeouts: ConnectionSettings = {
      querySeconds: config.databaseQueryTimeoutSeconds,
      idleInTransactionSeconds: config.runnerLeaseSeconds,
      poolSize: config.databasePoolSize
    }
    return Option.isSome(config.databaseUrl)
      ? yield* connectUrl(config.databaseUrl.value, config.startupTimeoutSeconds, timeouts)
      : yield* Effect.flatMap(
        embeddedDatabase(config),
        (db) =>
          connect({ host: db.host, port: db.port, user: db.user, password: db.password, database: db.database }, timeouts).pipe(
            Effect.orDie
          )
      )
  })
).pipe(Layer.provide(Reactivity.layer))

/** `DATABASE_URL` when set (waited for up to STARTUP_TIMEOUT_SECONDS), else the embedded PostgreSQL in `DATA_DIR/pg`. */
export const DatabaseLive = PreparedSql.layer.pipe(Layer.provideMerge(ConnectionLive))

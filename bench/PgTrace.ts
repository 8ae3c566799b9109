import pg from "pg"

interface Statement {
  readonly text: string
  /** Sent inside BEGIN ... COMMIT (not a commit of its own). */
  readonly inTransaction: boolean
}

const head = (text: string) => text.trimStart().slice(0, 16).toUpperCase()

/** What each trace of the process sees of a statement: every trace is told of every statement. */
const listeners = new Set<(client: { database?: string }, text: string, inTransaction: boolean) => void>()
const open = new WeakMap<object, boolean>()

const patch = () => {
  const prototype = pg.Client.prototype as unknown as { query: (...args: Array<unknown>) => unknown; __benchTraced?: boolean }
  if (prototype.__benchTraced === true) return
  prototype.__benchTraced = true
  const query = prototype.query
  prototype.query = function(this: { database?: string }, ...args: Array<unknown>) {
    const config = args[0]
    const text = typeof config === "string" ? config : (config as { text?: string } | undefined)?.text ?? ""
    const h = head(text)
    const inTransaction = open.get(this) ?? false
    if (h.startsWith("BEGIN") || h.startsWith("START")) open.set(this, true)
    else if (h.startsWith("COMMIT") || (h.startsWith("ROLLBACK") && !h.startsWith("ROLLBACK TO"))) open.set(this, false)
    for (const listener of listeners) listener(this, text, inTransaction)
    return query.apply(this, args)
  }
}

/**
 * Counts the statements the platform sends to one database, and the commits among them (a
 * statement outside a transaction is one, a COMMIT is one), by wrapping `pg`'s Client.query:
 * every PostgreSQL client of the process goes through it. Statements of the benchmark's own
 * bookkeeping carry the marker comment and are left out.
 */
export const makePgTrace = (database: () => string | undefined) => {
  const log: Array<Statement> = []
  let enabled = false
  patch()
  listeners.add((client, text, inTransaction) => {
    if (enabled && client.database === database() && !text.includes(BENCH_MARK)) log.push({ text, inTransaction })
  })
  const commits = (statements: ReadonlyArray<Statement>) =>
    statements.filter((s) =>
      !s.inTransaction && !head(s.text).startsWith("BEGIN") && !head(s.text).startsWith("SAVEPOINT") && !head(s.text).startsWith("RELEASE")
    ).length
  return {
    start: () => {
      log.length = 0
      enabled = true
    },
    stop: () => {
      enabled = false
      return log.slice()
    },
    commits,
    /** Statements that write (the rest are reads, committed as well when outside a transaction). */
    writes: (statements: ReadonlyArray<Statement>) => statements.filter((s) => /\b(INSERT|UPDATE|DELETE)\b/i.test(s.text) && !s.inTransaction).length
  }
}

/** Marks the benchmark's own statements (polls, lookups): not counted. */
export const BENCH_MARK = "/*bench*/"

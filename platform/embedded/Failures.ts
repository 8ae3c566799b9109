/** What PostgreSQL said when it failed, turned into one line with the cause and the fix. */
export const explainPostgresFailure = (output: string, context: { readonly pgdata: string; readonly port: number; readonly account: string }): string => {
  const { pgdata, port, account } = context
  if (/No space left on device|could not extend file|disk full/i.test(output)) {
    return `The embedded PostgreSQL has no disk space left in ${pgdata}: free some space, set DATA_DIR to a larger disk, or set DATABASE_URL.`
  }
  if (/could not bind|Address already in use|could not create any TCP\/IP sockets/i.test(output)) {
    return `Port ${port} for the embedded PostgreSQL is already in use: stop what uses it, set EMBEDDED_POSTGRES_PORT to a free port, or set DATABASE_URL.`
  }
  if (/lock file .* already exists|Is another postmaster/i.test(output)) {
    return `Another PostgreSQL is already running on ${pgdata}: stop it (or the platform that started it) and start again.`
  }
  if (/database files are incompatible with server|initialized by PostgreSQL version/i.test(output)) {
    return `${pgdata} holds data of another PostgreSQL version: move it away, set DATA_DIR elsewhere, or set DATABASE_URL to a server of that version.`
  }
  if (/Permission denied|EACCES|EPERM|Operation not permitted|must be owned by|has invalid permissions/i.test(output)) {
    return `The embedded PostgreSQL (running as '${account}') cannot use ${pgdata} (permission denied): ` +
      `give '${account}' access to it, set DATA_DIR to a directory it can write, or set DATABASE_URL.`
  }
  const reason = output.split("\n").map((l) => l.trim()).filter((l) => /FATAL|PANIC|ERROR|error/.test(l)).at(-1) ??
    output.trim().split("\n").at(-1) ?? "no output"
  return `The embedded PostgreSQL could not start (${reason.slice(0, 300)}): see DATA_DIR/embedded-postgres.log, or set DATABASE_URL.`
}

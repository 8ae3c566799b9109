import { SqlClient } from "@effect/sql"
import { Effect, Option, Redacted } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { AppConfig } from "../../platform/Config.js"
import { Passwords } from "./Passwords.js"
import { TenantsRepo } from "./TenantsRepo.js"
import { UsersRepo } from "./UsersRepo.js"

export const INITIAL_ADMIN_EMAIL = "admin@localhost"
export const INITIAL_PASSWORD_FILE = "initial-admin-password"

/** Who the first admin is, when this start created one. */
export interface FirstAdmin {
  readonly email: string
  readonly tenant: string
  /** Set when the password was generated (and written to DATA_DIR). */
  readonly passwordFile: string | undefined
}

const generated = () => randomBytes(18).toString("base64url")

/**
 * On a first start with no user: tenant `BOOTSTRAP_TENANT` (default `default`) with the env_admin
 * `BOOTSTRAP_ADMIN_EMAIL` (default `admin@localhost`). Without `BOOTSTRAP_ADMIN_PASSWORD` the
 * password is random, printed once and written to `DATA_DIR/initial-admin-password` (0600), as
 * Jenkins does. Processes starting
 * together take an advisory lock, so only one creates it.
 */
export const bootstrapAdmin = Effect.gen(function*() {
  const config = yield* AppConfig
  const users = yield* UsersRepo
  const passwords = yield* Passwords
  const tenants = yield* TenantsRepo
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(hashtext('builder-platform:bootstrap'))`
    if ((yield* users.countUsers) > 0) return Option.none<FirstAdmin>()
    const email = Option.getOrElse(config.bootstrapAdminEmail, () => INITIAL_ADMIN_EMAIL)
    const configured = Option.map(config.bootstrapAdminPassword, Redacted.value)
    const password = Option.getOrElse(configured, generated)
    const slug = config.bootstrapTenant
    const tenant = yield* tenants.bySlug(slug).pipe(
      Effect.flatMap(Option.match({
        onSome: Effect.succeed,
        onNone: () =>
          tenants.insert({ id: randomUUID(), name: slug, slug }).pipe(
            Effect.flatMap(Option.match({ onSome: Effect.succeed, onNone: () => Effect.dieMessage("tenant insert lost") }))
          )
      }))
    )
    const user = yield* users.insertUser({ id: randomUUID(), email, name: "Administrator", password_hash: yield* passwords.hash(password) })
    if (Option.isNone(user)) return Option.none<FirstAdmin>()
    yield* users.addMembership(tenant.id, user.value.id, "env_admin")
    if (Option.isSome(configured)) {
      yield* Effect.log(`Created bootstrap admin ${email} in tenant '${slug}'`)
      return Option.some<FirstAdmin>({ email, tenant: slug, passwordFile: undefined })
    }
    const file = path.resolve(config.dataDir, INITIAL_PASSWORD_FILE)
    yield* Effect.promise(async () => {
      await fs.mkdir(path.dirname(file), { recursive: true })
      await fs.writeFile(file, `${password}\n`, { mode: 0o600 })
      await fs.chmod(file, 0o600)
    })
    yield* Effect.log(
      `Created the first admin ${email} in tenant '${slug}' with the password ${password} (shown once; also in ${file})`
    )
    return Option.some<FirstAdmin>({ email, tenant: slug, passwordFile: file })
  }))
}).pipe(Effect.orDie, Effect.withSpan("bootstrapAdmin"))

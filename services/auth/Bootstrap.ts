import { randomUUID } from "node:crypto"
import { Effect, Option, Redacted } from "effect"
import { AppConfig } from "../shared/Config.js"
import { hashPassword } from "./Passwords.js"
import { TenantsRepo } from "./TenantsRepo.js"
import { UsersRepo } from "./UsersRepo.js"

/** On a first start with no user yet, creates `BOOTSTRAP_TENANT` with `BOOTSTRAP_ADMIN_EMAIL` as env_admin. */
export const bootstrapAdmin = Effect.gen(function*() {
  const config = yield* AppConfig
  const users = yield* UsersRepo
  const tenants = yield* TenantsRepo
  if ((yield* users.countUsers) > 0) return
  if (Option.isNone(config.bootstrapAdminEmail) || Option.isNone(config.bootstrapAdminPassword)) {
    yield* Effect.logWarning(
      "No user exists yet. Set BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD (and optionally BOOTSTRAP_TENANT) " +
        "and restart to create the first env_admin."
    )
    return
  }
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
  const passwordHash = yield* hashPassword(Redacted.value(config.bootstrapAdminPassword.value))
  const user = yield* users.insertUser({
    id: randomUUID(),
    email: config.bootstrapAdminEmail.value,
    name: "Administrator",
    password_hash: passwordHash
  })
  if (Option.isNone(user)) return
  yield* users.addMembership(tenant.id, user.value.id, "env_admin")
  yield* Effect.log(`Created bootstrap admin ${config.bootstrapAdminEmail.value} in tenant '${slug}'`)
}).pipe(Effect.withSpan("bootstrapAdmin"))

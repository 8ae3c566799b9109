import { Effect, Option } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { traced } from "../../platform/Traced.js"
import { Sso } from "./Sso.js"
import { Tokens } from "./Tokens.js"
import { UsersRepo } from "./UsersRepo.js"

/** Email-first sign-in: tells the client which method applies to this address. */
export class Begin extends Effect.Service<Begin>()("Begin", {
  dependencies: [Sso.Default, Tokens.Default, UsersRepo.Default],
  effect: Effect.gen(function*() {
    const sso = yield* Sso
    const users = yield* UsersRepo
    const tokens = yield* Tokens
    const config = yield* AppConfig

    const begin = (email: string) =>
      Effect.gen(function*() {
        const ssoTenant = yield* sso.forEmail(email)
        if (Option.isSome(ssoTenant)) {
          const token = yield* tokens.sign({ sub: email, tid: ssoTenant.value, typ: "sso_continue", amr: [], email })
          return {
            method: "sso" as const,
            continuation_token: token,
            continue_url: `${config.publicBaseUrl}/api/v1/auth/auth/sso/continue?token=${encodeURIComponent(token)}`
          }
        }
        // An address nobody has gets the same answer as a password account: no enumeration.
        const user = yield* users.byEmail(email)
        return { method: Option.isSome(user) && user.value.password_hash === null ? "otp" as const : "password" as const }
      })

    return traced("Begin", { begin })
  })
}) {}

import { Effect, Option } from "effect"
import { Audit } from "../../platform/Audit.js"
import { traced } from "../../platform/Traced.js"
import type { LoginResponse, LoginResult } from "../../schemas/Auth.js"
import { unauthorized } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { Passwords } from "./Passwords.js"
import { SignInThrottle } from "./SignInThrottle.js"
import type { TokenType } from "./Tokens.js"
import { Tokens } from "./Tokens.js"
import type { MembershipRow, UserRow } from "./UsersRepo.js"
import { settingsOf, UsersRepo } from "./UsersRepo.js"

export { throttled, WINDOW_SECONDS as LOGIN_WINDOW_SECONDS } from "./SignInThrottle.js"

/** Turns a verified identity into tokens: the one place that decides between full and partial auth. */
export class Sessions extends Effect.Service<Sessions>()("Sessions", {
  dependencies: [Passwords.Default, SignInThrottle.Default, Tokens.Default, UsersRepo.Default],
  effect: Effect.gen(function*() {
    const users = yield* UsersRepo
    const tokens = yield* Tokens
    const throttle = yield* SignInThrottle
    const audit = yield* Audit
    const passwords = yield* Passwords

    const toUser = (user: UserRow, m: MembershipRow) => ({
      id: user.id,
      tenant_id: m.tenant_id,
      email: user.email,
      name: user.name,
      role: m.role,
      status: m.status
    })

    const fullTokens = (user: UserRow, m: MembershipRow, amr: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const claims = { sub: user.id, tid: m.tenant_id, amr, email: user.email }
        const access_token = yield* tokens.sign({ ...claims, typ: "access" })
        const refresh_token = yield* tokens.sign({ ...claims, typ: "refresh" })
        yield* users.touchLogin(m.tenant_id, user.id)
        return {
          access_token,
          refresh_token,
          token_type: "Bearer" as const,
          expires_in: tokens.ttl.access,
          user: toUser(user, m)
        } satisfies LoginResponse
      })

    const issue = (user: UserRow, m: MembershipRow, amr: ReadonlyArray<string>): Effect.Effect<LoginResult> =>
      Effect.gen(function*() {
        if (settingsOf(m).require_totp && !amr.includes("totp")) {
          const partial = yield* tokens.sign({ sub: user.id, tid: m.tenant_id, typ: "partial", amr })
          return { partial_auth_token: partial, mfa_required: "totp" as const, totp_enrolled: user.totp_enabled }
        }
        yield* audit.record(undefined, {
          tenantId: m.tenant_id,
          action: "auth.login",
          resourceType: "user",
          resourceId: user.id,
          details: { amr }
        })
        return yield* fullTokens(user, m, amr)
      })

    /** The membership to sign into: the named tenant, else the most recently used active one. */
    const pickMembership = (user: UserRow, tenantSlug: string | undefined) =>
      users.memberships(user.id).pipe(
        Effect.map((ms) =>
          Option.fromNullable(
            ms.find((m) => m.status === "active" && (tenantSlug === undefined || m.tenant_slug === tenantSlug))
          )
        )
      )

    const login = (input: { email: string; password: string; tenant?: string | undefined }) =>
      Effect.gen(function*() {
        const subject = `login:${input.email.toLowerCase()}`
        yield* throttle.guard(subject)
        const user = yield* users.byEmail(input.email)
        const hash = Option.match(user, { onNone: () => passwords.dummy, onSome: (u) => u.password_hash ?? passwords.dummy })
        const passwordOk = yield* passwords.verify(input.password, hash)
        const membership = Option.isSome(user) && passwordOk && hash !== passwords.dummy
          ? yield* pickMembership(user.value, input.tenant)
          : Option.none<MembershipRow>()
        if (Option.isNone(user) || Option.isNone(membership)) {
          return yield* throttle.failed(subject, unauthorized("Invalid email or password", "INVALID_CREDENTIALS"))
        }
        yield* throttle.succeeded(subject)
        if (passwords.outdated(hash)) yield* users.replacePasswordHash(user.value.id, hash, yield* passwords.hash(input.password))
        return yield* issue(user.value, membership.value, ["pwd"])
      })

    /** Resolves a token of the given type to its user and still-active membership. */
    const resolve = (token: string, typ: TokenType) =>
      Effect.gen(function*() {
        const claims = yield* tokens.verify(token, typ).pipe(
          Effect.mapError((e) =>
            unauthorized(e.reason === "expired" ? "Token expired" : "Invalid token", e.reason === "expired" ? "TOKEN_EXPIRED" : "INVALID_TOKEN")
          )
        )
        const found = yield* users.signedInAs(claims.tid, claims.sub)
        if (Option.isNone(found) || found.value.membership.status !== "active") {
          return yield* unauthorized("The account is no longer active in this tenant", "ACCOUNT_INACTIVE")
        }
        return { claims, ...found.value }
      })

    const refresh = (refreshToken: string) =>
      Effect.gen(function*() {
        const { claims, user } = yield* resolve(refreshToken, "refresh")
        const access_token = yield* tokens.sign({
          sub: user.id,
          tid: claims.tid,
          typ: "access",
          amr: claims.amr,
          email: user.email
        })
        return { access_token, token_type: "Bearer" as const, expires_in: tokens.ttl.access }
      })

    /**
     * Another membership of the signed-in user. A password or emailed code is the user's own and
     * every workspace trusts it (subject to its TOTP rule, applied by `issue`); what a workspace's
     * identity provider asserted is trusted by that workspace alone, so such a session stays there.
     */
    const switchTenant = (principal: Principal, targetTenantId: string) =>
      Effect.gen(function*() {
        if (principal.amr.includes("sso") && targetTenantId !== principal.tenantId) {
          return yield* Effect.fail({ _tag: "ReauthenticationRequired" as const })
        }
        const found = yield* users.withMembership(targetTenantId, principal.userId)
        if (Option.isNone(found) || found.value.membership.status !== "active") {
          return yield* Effect.fail({ _tag: "NotMember" as const })
        }
        return yield* issue(found.value.user, found.value.membership, principal.amr)
      })

    return traced("Sessions", { issue, login, refresh, resolve, switchTenant, pickMembership, toUser })
  })
}) {}

import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { createHash, randomInt, randomUUID } from "node:crypto"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { Mailer } from "../../platform/Mailer.js"
import { RateLimiter } from "../../platform/RateLimiter.js"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { badRequest, conflict, unauthorized } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { Sessions } from "./Sessions.js"
import { SignInThrottle, throttled, WINDOW_SECONDS as LOGIN_WINDOW_SECONDS } from "./SignInThrottle.js"
import { matchTotp, newTotpSecret, totpUri } from "./Totp.js"
import type { UserRow } from "./UsersRepo.js"
import { UsersRepo } from "./UsersRepo.js"

const OTP_TTL_MINUTES = 10
const OTP_MAX_ATTEMPTS = 5
const OTP_REQUESTS_PER_WINDOW = 5

const otpHash = (userId: string, code: string) => createHash("sha256").update(`${userId}:${code}`).digest("hex")

/** One-time codes by mail and TOTP (RFC 6238, library `otpauth`). */
export class SecondFactor extends Effect.Service<SecondFactor>()("SecondFactor", {
  dependencies: [Sessions.Default, SignInThrottle.Default, UsersRepo.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const users = yield* UsersRepo
    const sessions = yield* Sessions
    const mailer = yield* Mailer
    const limiter = yield* RateLimiter
    const throttle = yield* SignInThrottle
    const cipher = yield* CredentialsCipher

    const requestOtp = (input: { email: string; tenant?: string | undefined }) =>
      Effect.gen(function*() {
        const sent = yield* limiter.hit(`otp-request:${input.email.toLowerCase()}`, OTP_REQUESTS_PER_WINDOW, LOGIN_WINDOW_SECONDS)
        if (!sent.allowed) return yield* throttled(sent.retryAfterSeconds)
        const user = yield* users.byEmail(input.email)
        // Same answer whether or not the address is known: no account enumeration.
        if (Option.isNone(user)) return { status: "sent" as const }
        const membership = yield* sessions.pickMembership(user.value, input.tenant)
        if (Option.isNone(membership)) return { status: "sent" as const }
        const code = String(randomInt(0, 1_000_000)).padStart(6, "0")
        yield* sql`INSERT INTO otp_codes ${
          sql.insert({
            id: randomUUID(),
            user_id: user.value.id,
            code_hash: otpHash(user.value.id, code),
            expires_at: new Date(Date.now() + OTP_TTL_MINUTES * 60_000)
          })
        }`.pipe(Effect.orDie)
        yield* mailer.send({
          to: user.value.email,
          subject: "Your Builder Platform sign-in code",
          text: `Your sign-in code is ${code}. It expires in ${OTP_TTL_MINUTES} minutes.`
        })
        return { status: "sent" as const }
      })

    const verifyOtp = (input: { email: string; code: string; tenant?: string | undefined }) =>
      Effect.gen(function*() {
        const subject = `otp:${input.email.toLowerCase()}`
        yield* throttle.guard(subject)
        const fail = throttle.failed(subject, unauthorized("Invalid or expired code", "INVALID_CODE"))
        const user = yield* users.byEmail(input.email)
        if (Option.isNone(user)) return yield* fail
        const rows = yield* sql`
          UPDATE otp_codes SET attempts = attempts + 1
          WHERE id = (SELECT id FROM otp_codes WHERE user_id = ${user.value.id} AND consumed_at IS NULL
                      AND expires_at > now() AND attempts < ${OTP_MAX_ATTEMPTS}
                      ORDER BY created_at DESC LIMIT 1)
          RETURNING id, code_hash`.pipe(decodeRows("otp_codes", Schema.Struct({ id: Schema.String, code_hash: Schema.String }))).pipe(Effect.orDie)
        const row = rows[0]
        if (row === undefined || row.code_hash !== otpHash(user.value.id, input.code.trim())) return yield* fail
        yield* sql`UPDATE otp_codes SET consumed_at = now() WHERE id = ${row.id}`.pipe(Effect.orDie)
        const membership = yield* sessions.pickMembership(user.value, input.tenant)
        if (Option.isNone(membership)) return yield* fail
        yield* throttle.succeeded(subject)
        return yield* sessions.issue(user.value, membership.value, ["otp"])
      })

    const secretOf = (user: UserRow) =>
      user.totp_secret_enc === null
        ? Effect.succeedNone
        : cipher.decrypt(user.totp_secret_enc, `totp:${user.id}`).pipe(Effect.orDie, Effect.map(Option.some))

    const startEnrollment = (user: UserRow) =>
      Effect.gen(function*() {
        if (user.totp_enabled) return yield* conflict("TOTP_ALREADY_ENABLED", "TOTP is already enabled for this account")
        const secret = newTotpSecret()
        yield* users.setTotp(user.id, yield* cipher.encrypt(secret, `totp:${user.id}`), false)
        return { secret, otpauth_uri: totpUri(secret, user.email) }
      })

    /** Checks a code and burns its time step, so one code cannot be replayed. */
    const checkCode = (user: UserRow, code: string) =>
      Effect.gen(function*() {
        const secret = yield* secretOf(user)
        if (Option.isNone(secret)) return false
        const step = matchTotp(secret.value, code.trim())
        return step !== undefined && (yield* users.consumeTotpStep(user.id, step))
      })

    const enrollForPartial = (partialToken: string) => sessions.resolve(partialToken, "partial").pipe(Effect.flatMap(({ user }) => startEnrollment(user)))

    const verifyTotp = (partialToken: string, code: string) =>
      Effect.gen(function*() {
        const { claims, membership, user } = yield* sessions.resolve(partialToken, "partial")
        const subject = `totp:${user.id}`
        yield* throttle.guard(subject)
        if (!(yield* checkCode(user, code))) return yield* throttle.failed(subject, unauthorized("Invalid TOTP code", "INVALID_CODE"))
        yield* throttle.succeeded(subject)
        if (!user.totp_enabled) yield* users.enableTotp(user.id)
        const result = yield* sessions.issue({ ...user, totp_enabled: true }, membership, [...claims.amr, "totp"])
        if (!("access_token" in result)) return yield* Effect.dieMessage("TOTP sign-in did not complete")
        return result
      })

    const enrollForUser = (principal: Principal) =>
      users.byId(principal.userId).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.dieMessage("user vanished"), onSome: startEnrollment }))
      )

    const activateForUser = (principal: Principal, code: string) =>
      Effect.gen(function*() {
        const user = yield* users.byId(principal.userId).pipe(Effect.flatMap(Effect.orDieWith(() => "user vanished")))
        if (user.totp_enabled) return { totp_enabled: true }
        if (!(yield* checkCode(user, code))) {
          return yield* badRequest("INVALID_CODE", "The code does not match; enroll first and use the current code")
        }
        yield* users.enableTotp(user.id)
        return { totp_enabled: true }
      })

    return traced("SecondFactor", { requestOtp, verifyOtp, enrollForPartial, verifyTotp, enrollForUser, activateForUser })
  })
}) {}

import { Effect } from "effect"
import { RateLimiter } from "../../platform/RateLimiter.js"
import { CurrentClientAddress } from "../../platform/RequestContext.js"
import { traced } from "../../platform/Traced.js"
import { TooManyRequests } from "../../schemas/Errors.js"

/** Failed sign-ins one client may make against one account in a window before 429. */
export const PAIR_FAILURE_LIMIT = 5
/** Failed sign-ins one client address may make in a window, across all accounts: the hard limit. */
export const CLIENT_FAILURE_LIMIT = 50
export const WINDOW_SECONDS = 15 * 60
/** After this many failures against an account (from anywhere), each attempt on it waits a little longer. */
const DELAY_AFTER = 5
const MAX_DELAY_MS = 4000

export const throttled = (retryAfterSeconds: number) =>
  new TooManyRequests({
    code: "TOO_MANY_ATTEMPTS",
    message: "Too many failed attempts; try again later",
    retry_after_seconds: retryAfterSeconds
  })

/**
 * Sign-in throttling as the OWASP authentication cheat sheet advises: failures are counted per
 * account and client address together (429 for that pair only, so an attacker elsewhere cannot
 * lock the owner out), with a hard limit per client address across accounts, and a progressive
 * delay per account that slows a distributed guesser without refusing the owner.
 */
export class SignInThrottle extends Effect.Service<SignInThrottle>()("SignInThrottle", {
  effect: Effect.gen(function*() {
    const limiter = yield* RateLimiter
    const keys = (subject: string) =>
      Effect.map(CurrentClientAddress, (client) => ({
        pair: `signin:pair:${subject}|${client ?? "unknown"}`,
        client: `signin:client:${client ?? "unknown"}`,
        account: `signin:account:${subject}`
      }))

    /** Before checking a credential for `subject` (e.g. `login:<email>`): 429 when over a limit, else a delay if the account is under attack. */
    const guard = (subject: string) =>
      Effect.gen(function*() {
        const k = yield* keys(subject)
        for (const [key, limit] of [[k.pair, PAIR_FAILURE_LIMIT], [k.client, CLIENT_FAILURE_LIMIT]] as const) {
          const d = yield* limiter.peek(key, limit)
          if (!d.allowed) return yield* throttled(d.retryAfterSeconds)
        }
        const failures = (yield* limiter.peek(k.account, Number.MAX_SAFE_INTEGER)).count
        if (failures > DELAY_AFTER) yield* Effect.sleep(Math.min(250 * 2 ** (failures - DELAY_AFTER - 1), MAX_DELAY_MS))
      })

    /** A wrong credential: counted; `error` unless this failure used up the pair's or the client's allowance. */
    const failed = <E>(subject: string, error: E) =>
      Effect.gen(function*() {
        const k = yield* keys(subject)
        yield* limiter.hit(k.account, Number.MAX_SAFE_INTEGER, WINDOW_SECONDS)
        const client = yield* limiter.hit(k.client, CLIENT_FAILURE_LIMIT, WINDOW_SECONDS)
        const pair = yield* limiter.hit(k.pair, PAIR_FAILURE_LIMIT, WINDOW_SECONDS)
        if (!pair.allowed) return yield* throttled(pair.retryAfterSeconds)
        if (!client.allowed) return yield* throttled(client.retryAfterSeconds)
        return yield* Effect.fail(error)
      })

    const succeeded = (subject: string) =>
      Effect.gen(function*() {
        const k = yield* keys(subject)
        yield* limiter.reset(k.pair)
        yield* limiter.reset(k.account)
      })

    return traced("SignInThrottle", { guard, failed, succeeded })
  })
}) {}

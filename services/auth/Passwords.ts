import { Effect } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { AppConfig } from "../../platform/Config.js"
import { traced } from "../../platform/Traced.js"

/**
 * scrypt (memory-hard, in Node's own crypto) at N=2^15, r=8, p=3: one of the settings OWASP's
 * Password Storage Cheat Sheet lists as equal to its minimum (N=2^17, r=8, p=1), the "current
 * guidance" ASVS 5.0 (V11.4.2) points to, with 32 MiB per hash instead of 128. Hashes keep their
 * parameters, so older ones still verify. `PASSWORD_HASH_COST` sets N's exponent (README).
 */
export const SCRYPT_PARAMS = { N: 32768, r: 8, p: 3 } as const
const DEFAULT_PASSWORD_HASH_COST = Math.log2(SCRYPT_PARAMS.N)
const KEYLEN = 32
// scrypt's table is 128 * r * N bytes: 64 MiB at the highest cost allowed (2^16, r=8), with room
// to spare; a stored hash asking for more is refused instead of allocated.
const MAXMEM = 96 * 1024 * 1024

const derive = (password: string, salt: Buffer, n: number, r: number, p: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password, salt, KEYLEN, { N: n, r, p, maxmem: MAXMEM }, (error, key) => {
      resume(error === null ? Effect.succeed(key) : Effect.die(error))
    })
  })

const parse = (stored: string) => {
  const [scheme, n, r, p, salt, hash] = stored.split("$")
  if (scheme !== "scrypt" || salt === undefined || hash === undefined) return undefined
  return { n: Number(n), r: Number(r), p: Number(p), salt: Buffer.from(salt, "base64"), hash: Buffer.from(hash, "base64") }
}

/** Password hashes (`scrypt$N$r$p$salt$hash`, base64 parts) at the configured cost. */
export class Passwords extends Effect.Service<Passwords>()("Passwords", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const n = 2 ** config.passwordHashCost
    if (config.passwordHashCost < DEFAULT_PASSWORD_HASH_COST) {
      yield* Effect.logWarning(
        `PASSWORD_HASH_COST=${config.passwordHashCost}: new password hashes are weaker than OWASP's minimum (${DEFAULT_PASSWORD_HASH_COST}); use it for test suites only`
      )
    }
    const { r, p } = SCRYPT_PARAMS

    const hash = (password: string) =>
      Effect.gen(function*() {
        const salt = randomBytes(16)
        const key = yield* derive(password, salt, n, r, p)
        return `scrypt$${n}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`
      })

    const verify = (password: string, stored: string) =>
      Effect.gen(function*() {
        const parsed = parse(stored)
        if (parsed === undefined) return false
        const key = yield* derive(password, parsed.salt, parsed.n, parsed.r, parsed.p)
        return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash)
      })

    /** Whether a stored hash was made with other parameters than new ones are (so is made again at the next sign-in). */
    const outdated = (stored: string) => {
      const parsed = parse(stored)
      return parsed !== undefined && (parsed.n !== n || parsed.r !== r || parsed.p !== p)
    }

    /** Checked when the email is unknown: the same time as a real check, so unknown emails cannot be told apart by timing. */
    const dummy = `scrypt$${n}$${r}$${p}$${Buffer.alloc(16).toString("base64")}$${Buffer.alloc(KEYLEN).toString("base64")}`

    return traced("Passwords", { hash, verify, outdated, dummy })
  })
}) {}

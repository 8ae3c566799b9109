import { Effect } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

/**
 * scrypt (memory-hard, in Node's own crypto) at N=2^15, r=8, p=3: one of the settings OWASP's
 * Password Storage Cheat Sheet lists as equal to its minimum (N=2^17, r=8, p=1), the "current
 * guidance" ASVS 5.0 (V11.4.2) points to, with 32 MiB per hash instead of 128. Hashes keep their
 * parameters, so older ones still verify.
 */
export const SCRYPT_PARAMS = { N: 32768, r: 8, p: 3 } as const
const { N, r, p } = SCRYPT_PARAMS
const KEYLEN = 32
const MAXMEM = 64 * 1024 * 1024

const derive = (password: string, salt: Buffer, n: number, rr: number, pp: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password, salt, KEYLEN, { N: n, r: rr, p: pp, maxmem: MAXMEM }, (error, key) => {
      resume(error === null ? Effect.succeed(key) : Effect.die(error))
    })
  })

/** `scrypt$N$r$p$salt$hash`, base64 parts. */
export const hashPassword = (password: string) =>
  Effect.gen(function*() {
    const salt = randomBytes(16)
    const key = yield* derive(password, salt, N, r, p)
    return `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`
  })

export const verifyPassword = (password: string, stored: string) =>
  Effect.gen(function*() {
    const [scheme, n, rr, pp, salt, hash] = stored.split("$")
    if (scheme !== "scrypt" || salt === undefined || hash === undefined) return false
    const expected = Buffer.from(hash, "base64")
    const key = yield* derive(password, Buffer.from(salt, "base64"), Number(n), Number(rr), Number(pp))
    return key.length === expected.length && timingSafeEqual(key, expected)
  })

/** Spends the same time as a real check, so unknown emails cannot be told apart by timing. */
export const DUMMY_HASH = "scrypt$32768$8$3$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

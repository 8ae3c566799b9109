import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { exportJWK, SignJWT } from "jose"
import { createHmac, generateKeyPairSync, randomBytes } from "node:crypto"
import { generateApiKey } from "../../services/auth/ApiKeySecret.js"
import { Passwords, SCRYPT_PARAMS } from "../../services/auth/Passwords.js"
import { AUDIENCE, ISSUER, Tokens } from "../../services/auth/Tokens.js"
import { configLayer } from "../support/UnitLayers.js"

const secret = "s".repeat(64)
const TokensLive = Tokens.Default.pipe(Layer.provide(configLayer({ JWT_SECRET: secret, ACCESS_TOKEN_TTL_SECONDS: "60" })))
const key = new TextEncoder().encode(secret)
const now = () => Math.floor(Date.now() / 1000)
const claims = { sub: "11111111-1111-4111-8111-111111111111", tid: "22222222-2222-4222-8222-222222222222", typ: "access", amr: ["pwd"] }

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
const sign = (header: Record<string, unknown>, payload: Record<string, unknown>, signKey: Uint8Array | KeyObject = key) =>
  Effect.promise(() => new SignJWT(payload).setProtectedHeader({ alg: "HS256", ...header }).sign(signKey))
/** A token signed by hand, for headers jose will not write. */
const hmac = (header: Record<string, unknown>, payload: Record<string, unknown>) => {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${createHmac("sha256", key).update(input).digest("base64url")}`
}
type KeyObject = ReturnType<typeof generateKeyPairSync>["privateKey"]
const valid = (extra: Record<string, unknown> = {}) => ({ ...claims, iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 60, ...extra })

/** RFC 8725 (JWT Best Current Practices) attacks against the platform's token check: 0 accepted. */
describe("token attacks (RFC 8725)", () => {
  it.effect("every forged, confused, stale or tampered token is refused; the genuine one is accepted", () =>
    Effect.gen(function*() {
      const tokens = yield* Tokens
      const genuine = yield* sign({ typ: "JWT" }, valid())
      assert.isTrue(Either.isRight(yield* Effect.either(tokens.verify(genuine, "access"))), "the control token verifies")
      const [h, p, s] = genuine.split(".") as [string, string, string]
      const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
      const publicPem = publicKey.export({ type: "spki", format: "pem" }).toString()
      const jwk = yield* Effect.promise(() => exportJWK(publicKey))
      const attacks: Record<string, string> = {
        "alg none": `${b64({ alg: "none", typ: "JWT" })}.${p}.`,
        "alg None": `${b64({ alg: "None" })}.${p}.`,
        "alg NONE with the old signature": `${b64({ alg: "NONE" })}.${p}.${s}`,
        "signature stripped": `${h}.${p}.`,
        "tampered payload (role and tenant)": `${h}.${b64({ ...valid(), tid: "33333333-3333-4333-8333-333333333333", role: "env_admin" })}.${s}`,
        "tampered header": `${b64({ alg: "HS256", typ: "JWT", kid: "x" })}.${p}.${s}`,
        "HS512 with the right secret (algorithm not allowed)": yield* sign({ alg: "HS512" }, valid()),
        "HS384 with the right secret": yield* sign({ alg: "HS384" }, valid()),
        "RS256 with an attacker key": yield* sign({ alg: "RS256" }, valid(), privateKey),
        "RS256 with the attacker's key embedded as jwk": yield* sign({ alg: "RS256", jwk }, valid(), privateKey),
        "jku pointing at the attacker": yield* sign({ alg: "RS256", jku: "https://attacker.example/jwks.json", kid: "k1" }, valid(), privateKey),
        "x5u pointing at the attacker": yield* sign({ alg: "RS256", x5u: "https://attacker.example/cert.pem" }, valid(), privateKey),
        "kid path traversal with a guessed key": yield* sign({ kid: "../../../../dev/null" }, valid(), new Uint8Array(32)),
        "HS256 keyed with the attacker's public key (HS/RS confusion)": yield* sign({}, valid(), new TextEncoder().encode(publicPem)),
        "wrong key": yield* sign({}, valid(), randomBytes(64)),
        "wrong issuer": yield* sign({}, valid({ iss: "https://evil.example" })),
        "wrong audience": yield* sign({}, valid({ aud: "another-service" })),
        "no audience": yield* sign({}, { ...valid(), aud: undefined }),
        "expired": yield* sign({}, valid({ iat: now() - 600, exp: now() - 300 })),
        "not yet valid": yield* sign({}, valid({ nbf: now() + 600 })),
        "no expiry": yield* sign({}, { ...valid(), exp: undefined }),
        "refresh token as access": yield* sign({}, valid({ typ: "refresh" })),
        "partial (MFA pending) token as access": yield* sign({}, valid({ typ: "partial" })),
        "SSO continuation token as access": yield* sign({}, valid({ typ: "sso_continue" })),
        "unknown critical header": hmac({ alg: "HS256", crit: ["exp-policy"], "exp-policy": 1 }, valid()),
        "not a JWT": "hello.world",
        "empty": "",
        "oversized (1 MiB)": yield* sign({}, valid({ pad: "x".repeat(1024 * 1024) }), randomBytes(64))
      }
      for (const [name, token] of Object.entries(attacks)) {
        const started = Date.now()
        const verdict = yield* Effect.either(tokens.verify(token, "access"))
        assert.isTrue(Either.isLeft(verdict), `${name} was accepted`)
        assert.isBelow(Date.now() - started, 1_000, `${name} is refused promptly`)
      }
    }).pipe(Effect.provide(TokensLive)))

  it.effect("passwords are hashed at or above ASVS 5.0's current guidance; API keys carry at least 128 random bits", () =>
    Effect.gen(function*() {
      // OWASP Password Storage Cheat Sheet, scrypt: N=2^17 p=1, or its equal settings with r=8.
      const owasp = [[2 ** 17, 1], [2 ** 16, 2], [2 ** 15, 3], [2 ** 14, 5], [2 ** 13, 10]] as const
      assert.isTrue(owasp.some(([n, p]) => SCRYPT_PARAMS.N >= n && SCRYPT_PARAMS.p >= p) && SCRYPT_PARAMS.r >= 8, JSON.stringify(SCRYPT_PARAMS))
      const stored = yield* (yield* Passwords).hash("correct horse battery staple")
      const [scheme, n, r, p, salt] = stored.split("$")
      assert.deepStrictEqual(
        [scheme, Number(n), Number(r), Number(p)],
        ["scrypt", SCRYPT_PARAMS.N, SCRYPT_PARAMS.r, SCRYPT_PARAMS.p],
        "stored hashes carry the parameters"
      )
      assert.isAtLeast(Buffer.from(salt, "base64").length, 16, "a salt of at least 128 bits")
      assert.notStrictEqual(stored, yield* (yield* Passwords).hash("correct horse battery staple"), "salted: the same password hashes differently")

      const keys = Array.from({ length: 200 }, () => generateApiKey().key)
      assert.strictEqual(new Set(keys).size, keys.length)
      for (const k of keys) assert.isAtLeast(Buffer.from(k.slice(4), "base64url").length * 8, 128)
      // Every position varies across keys: the bytes come from a CSPRNG, not a counter or a clock.
      const bytes = keys.map((k) => Buffer.from(k.slice(4), "base64url"))
      for (let i = 0; i < 16; i++) assert.isAbove(new Set(bytes.map((b) => b[i])).size, 100, `byte ${i} varies`)
    }).pipe(Effect.provide(Passwords.Default.pipe(Layer.provide(configLayer())))))
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Exit, Layer } from "effect"
import { scryptSync } from "node:crypto"
import { AppConfig } from "../../platform/Config.js"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { generateApiKey, hashApiKey } from "../../services/auth/ApiKeySecret.js"
import { Passwords } from "../../services/auth/Passwords.js"
import { currentTotp, matchTotp, newTotpSecret } from "../../services/auth/Totp.js"
import { configLayer } from "../support/UnitLayers.js"

const passwordsWith = (env: Record<string, string>) => Passwords.Default.pipe(Layer.provide(configLayer(env)))

describe("passwords", () => {
  it.effect("scrypt hashes verify the right password only, with a fresh salt each time", () =>
    Effect.gen(function*() {
      const passwords = yield* Passwords
      const a = yield* passwords.hash("s3cret-pass")
      const b = yield* passwords.hash("s3cret-pass")
      assert.notStrictEqual(a, b)
      assert.match(a, /^scrypt\$32768\$8\$3\$/)
      assert.isTrue(yield* passwords.verify("s3cret-pass", a))
      assert.isFalse(yield* passwords.verify("s3cret-pasS", a))
      assert.isFalse(yield* passwords.verify("s3cret-pass", "plain-text"))
      assert.isFalse(passwords.outdated(a))
      // A hash stored with the earlier parameters (p=1) still verifies: each hash carries its own.
      const salt = Buffer.alloc(16, 7)
      const earlier = `scrypt$32768$8$1$${salt.toString("base64")}$${
        scryptSync("s3cret-pass", salt, 32, { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }).toString("base64")
      }`
      assert.isTrue(yield* passwords.verify("s3cret-pass", earlier))
      assert.isTrue(passwords.outdated(earlier), "made again at the next sign-in")
    }).pipe(Effect.provide(passwordsWith({}))))

  it.effect("PASSWORD_HASH_COST sets N for new hashes and the unknown-email check; hashes of any cost still verify", () =>
    Effect.gen(function*() {
      const strong = yield* Effect.provide(Effect.flatMap(Passwords, (p) => p.hash("s3cret-pass")), passwordsWith({}))
      const passwords = yield* Effect.provide(Passwords, passwordsWith({ PASSWORD_HASH_COST: "10" }))
      const light = yield* passwords.hash("s3cret-pass")
      assert.match(light, /^scrypt\$1024\$8\$3\$/)
      assert.match(passwords.dummy, /^scrypt\$1024\$8\$3\$/)
      assert.isTrue(yield* passwords.verify("s3cret-pass", light))
      assert.isTrue(yield* passwords.verify("s3cret-pass", strong))
      assert.isFalse(yield* passwords.verify("s3cret-pass", passwords.dummy))
      assert.deepStrictEqual([passwords.outdated(strong), passwords.outdated(light)], [true, false])
      const highest = yield* Effect.provide(Passwords, passwordsWith({ PASSWORD_HASH_COST: "16" }))
      const heavy = yield* highest.hash("s3cret-pass")
      assert.match(heavy, /^scrypt\$65536\$8\$3\$/)
      assert.isTrue(yield* passwords.verify("s3cret-pass", heavy), "the highest cost allowed fits scrypt's memory cap")
      for (const bad of ["9", "17", "fifteen", "12.5"]) {
        const exit = yield* Effect.exit(Effect.provide(AppConfig, configLayer({ PASSWORD_HASH_COST: bad })))
        assert.isTrue(Exit.isFailure(exit), bad)
        assert.include(String(exit), "PASSWORD_HASH_COST", bad)
      }
    }))
})

describe("API key secrets", () => {
  it("keys are random, prefixed, and stored only as a hash", () => {
    const a = generateApiKey()
    const b = generateApiKey()
    assert.notStrictEqual(a.key, b.key)
    assert.isTrue(a.key.startsWith(a.prefix))
    assert.strictEqual(a.prefix.length, 12)
    assert.strictEqual(a.hash, hashApiKey(a.key))
    assert.notInclude(a.hash, a.key)
    assert.isAtLeast(a.key.length, 40)
  })
})

describe("TOTP (RFC 6238)", () => {
  it("accepts the current code and one step of drift, returns its step, refuses others", () => {
    const secret = newTotpSecret()
    const now = Date.now()
    const step = Math.floor(now / 30_000)
    assert.strictEqual(matchTotp(secret, currentTotp(secret, now), now), step)
    assert.strictEqual(matchTotp(secret, currentTotp(secret, now - 30_000), now), step - 1)
    assert.isUndefined(matchTotp(secret, currentTotp(secret, now - 120_000), now))
    assert.isUndefined(matchTotp(secret, "12345", now))
    assert.isUndefined(matchTotp(secret, "abcdef", now))
  })
})

describe("CredentialsCipher (AES-256-GCM)", () => {
  it.effect("round-trips, and detects tampering and a ciphertext moved to another record", () =>
    Effect.gen(function*() {
      const cipher = yield* CredentialsCipher
      const sealed = yield* cipher.encrypt("client-secret-value", "sso:tenant-a")
      assert.notInclude(sealed, "client-secret-value")
      assert.strictEqual(yield* cipher.decrypt(sealed, "sso:tenant-a"), "client-secret-value")
      const moved = yield* Effect.either(cipher.decrypt(sealed, "sso:tenant-b"))
      assert.isTrue(Either.isLeft(moved))
      const raw = Buffer.from(sealed.slice(3), "base64")
      raw[raw.length - 1] = raw[raw.length - 1] ^ 1
      const tampered = yield* Effect.either(cipher.decrypt(`v1:${raw.toString("base64")}`, "sso:tenant-a"))
      assert.isTrue(Either.isLeft(tampered))
    }).pipe(Effect.provide(CredentialsCipher.Default), Effect.provide(configLayer())))
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { scryptSync } from "node:crypto"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { generateApiKey, hashApiKey } from "../../services/auth/ApiKeySecret.js"
import { hashPassword, verifyPassword } from "../../services/auth/Passwords.js"
import { currentTotp, matchTotp, newTotpSecret } from "../../services/auth/Totp.js"
import { configLayer } from "../support/UnitLayers.js"

describe("passwords", () => {
  it.effect("scrypt hashes verify the right password only, with a fresh salt each time", () =>
    Effect.gen(function*() {
      const a = yield* hashPassword("s3cret-pass")
      const b = yield* hashPassword("s3cret-pass")
      assert.notStrictEqual(a, b)
      assert.match(a, /^scrypt\$32768\$8\$3\$/)
      assert.isTrue(yield* verifyPassword("s3cret-pass", a))
      assert.isFalse(yield* verifyPassword("s3cret-pasS", a))
      assert.isFalse(yield* verifyPassword("s3cret-pass", "plain-text"))
      // A hash stored with the earlier parameters (p=1) still verifies: each hash carries its own.
      const salt = Buffer.alloc(16, 7)
      const earlier = `scrypt$32768$8$1$${salt.toString("base64")}$${
        scryptSync("s3cret-pass", salt, 32, { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }).toString("base64")
      }`
      assert.isTrue(yield* verifyPassword("s3cret-pass", earlier))
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

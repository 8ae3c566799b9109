import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { SignJWT } from "jose"
import { AUDIENCE, ISSUER, Tokens } from "../../services/auth/Tokens.js"
import { configLayer } from "../support/UnitLayers.js"

const secret = "a".repeat(64)
const TokensLive = Tokens.Default.pipe(Layer.provide(configLayer({ JWT_SECRET: secret, ACCESS_TOKEN_TTL_SECONDS: "60" })))

const claims = { sub: "11111111-1111-4111-8111-111111111111", tid: "22222222-2222-4222-8222-222222222222", amr: ["pwd"] }

describe("Tokens", () => {
  it.effect("a signed token verifies as its own type only", () =>
    Effect.gen(function*() {
      const tokens = yield* Tokens
      const access = yield* tokens.sign({ ...claims, typ: "access" })
      const verified = yield* tokens.verify(access, "access")
      assert.strictEqual(verified.sub, claims.sub)
      assert.strictEqual(verified.tid, claims.tid)
      assert.deepStrictEqual(verified.amr, ["pwd"])
      for (const other of ["refresh", "partial", "sso_continue"] as const) {
        const r = yield* Effect.either(tokens.verify(access, other))
        assert.isTrue(Either.isLeft(r), other)
      }
      const refresh = yield* tokens.sign({ ...claims, typ: "refresh" })
      assert.isTrue(Either.isLeft(yield* Effect.either(tokens.verify(refresh, "access"))))
    }).pipe(Effect.provide(TokensLive)))

  it.effect("issuer, audience, signature and expiry are checked", () =>
    Effect.gen(function*() {
      const tokens = yield* Tokens
      const key = new TextEncoder().encode(secret)
      const forge = (f: (jwt: SignJWT) => SignJWT, signKey = key) =>
        Effect.promise(() =>
          f(new SignJWT({ tid: claims.tid, typ: "access" }).setProtectedHeader({ alg: "HS256" }).setSubject(claims.sub))
            .sign(signKey)
        )
      const good = yield* forge((j) => j.setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt().setExpirationTime("1m"))
      assert.isTrue(Either.isRight(yield* Effect.either(tokens.verify(good, "access"))))
      const cases = {
        wrongIssuer: yield* forge((j) => j.setIssuer("evil").setAudience(AUDIENCE).setIssuedAt().setExpirationTime("1m")),
        wrongAudience: yield* forge((j) => j.setIssuer(ISSUER).setAudience("other").setIssuedAt().setExpirationTime("1m")),
        wrongKey: yield* forge(
          (j) => j.setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt().setExpirationTime("1m"),
          new TextEncoder().encode("b".repeat(64))
        )
      }
      for (const [name, token] of Object.entries(cases)) {
        const r = yield* Effect.either(tokens.verify(token, "access"))
        assert.isTrue(Either.isLeft(r), name)
        if (Either.isLeft(r)) assert.strictEqual(r.left.reason, "invalid", name)
      }
      const expired = yield* forge((j) =>
        j.setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt(Math.floor(Date.now() / 1000) - 60).setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      )
      const r = yield* Effect.either(tokens.verify(expired, "access"))
      assert.isTrue(Either.isLeft(r) && r.left.reason === "expired")
      const none = yield* Effect.either(tokens.verify("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "access"))
      assert.isTrue(Either.isLeft(none))
    }).pipe(Effect.provide(TokensLive)))

  it.effect("every token type needs exp and iat: a token signed with the right key but missing either is refused", () =>
    Effect.gen(function*() {
      const tokens = yield* Tokens
      const key = new TextEncoder().encode(secret)
      for (const typ of ["access", "refresh", "partial", "sso_continue"] as const) {
        const sign = (withExp: boolean, withIat: boolean) =>
          Effect.promise(() => {
            let jwt = new SignJWT({ tid: claims.tid, typ }).setProtectedHeader({ alg: "HS256" }).setSubject(claims.sub)
              .setIssuer(ISSUER).setAudience(AUDIENCE)
            if (withExp) jwt = jwt.setExpirationTime("1m")
            if (withIat) jwt = jwt.setIssuedAt()
            return jwt.sign(key)
          })
        assert.isTrue(Either.isRight(yield* Effect.either(tokens.verify(yield* sign(true, true), typ))), `${typ} complete`)
        assert.isTrue(Either.isLeft(yield* Effect.either(tokens.verify(yield* sign(false, true), typ))), `${typ} without exp`)
        assert.isTrue(Either.isLeft(yield* Effect.either(tokens.verify(yield* sign(true, false), typ))), `${typ} without iat`)
      }
    }).pipe(Effect.provide(TokensLive)))

  it.live("a remembered token is refused once it expires, and a tampered copy of it never verifies", () =>
    Effect.gen(function*() {
      const tokens = yield* Tokens
      const key = new TextEncoder().encode(secret)
      const now = Math.floor(Date.now() / 1000)
      const shortLived = yield* Effect.promise(() =>
        new SignJWT({ tid: claims.tid, typ: "access" }).setProtectedHeader({ alg: "HS256" }).setSubject(claims.sub)
          .setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt(now).setExpirationTime(now + 2).sign(key)
      )
      // Valid for 1-2 s from here (seconds are whole): at least one full second even on a busy machine.
      assert.isTrue(Either.isRight(yield* Effect.either(tokens.verify(shortLived, "access"))))
      const [header, payload, signature] = shortLived.split(".")
      const longer = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), exp: now + 3600 })).toString("base64url")
      const tampered = yield* Effect.either(tokens.verify(`${header}.${longer}.${signature}`, "access"))
      assert.isTrue(Either.isLeft(tampered) && tampered.left.reason === "invalid")
      yield* Effect.sleep(`${(now + 2) * 1000 - Date.now() + 50} millis`)
      const late = yield* Effect.either(tokens.verify(shortLived, "access"))
      assert.isTrue(Either.isLeft(late) && late.left.reason === "expired")
    }).pipe(Effect.provide(TokensLive)))
})

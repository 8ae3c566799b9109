import { Effect, Redacted, Schema } from "effect"
import { errors, jwtVerify, SignJWT } from "jose"
import { AppConfig } from "../../platform/Config.js"
import { LocalSecrets } from "../../platform/LocalSecrets.js"

export const ISSUER = "builder-platform"
export const AUDIENCE = "builder-platform-api"

/** Every token carries its type; a token of one type is never accepted as another. */
export const TokenType = Schema.Literal("access", "refresh", "partial", "sso_continue")
export type TokenType = typeof TokenType.Type

const Claims = Schema.Struct({
  sub: Schema.String,
  tid: Schema.String,
  typ: TokenType,
  amr: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  email: Schema.optional(Schema.String)
})
export type Claims = typeof Claims.Type

export class TokenInvalid extends Schema.TaggedError<TokenInvalid>()("TokenInvalid", {
  reason: Schema.Literal("expired", "invalid")
}) {}

const PARTIAL_TTL_SECONDS = 600
const CONTINUE_TTL_SECONDS = 600

export class Tokens extends Effect.Service<Tokens>()("Tokens", {
  effect: Effect.gen(function*() {
    const secrets = yield* LocalSecrets
    const config = yield* AppConfig
    const key = Redacted.value(secrets.jwtSecret)

    const ttl: Record<TokenType, number> = {
      access: config.accessTokenTtlSeconds,
      refresh: config.refreshTokenTtlSeconds,
      partial: PARTIAL_TTL_SECONDS,
      sso_continue: CONTINUE_TTL_SECONDS
    }

    const sign = (claims: Claims) =>
      Effect.promise(() => {
        const jwt = new SignJWT({ tid: claims.tid, typ: claims.typ, amr: claims.amr, email: claims.email })
          .setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .setSubject(claims.sub)
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setIssuedAt()
          .setJti(crypto.randomUUID())
          .setExpirationTime(`${ttl[claims.typ]}s`)
        return jwt.sign(key)
      }).pipe(Effect.withSpan("Tokens.sign", { attributes: { typ: claims.typ } }))

    const verify = (token: string, expected: TokenType) =>
      Effect.tryPromise({
        // A token without an expiry (or an issue time) would live for ever: refused whatever its type.
        try: () => jwtVerify(token, key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ["HS256"], requiredClaims: ["exp", "iat", "sub"] }),
        catch: (error) => new TokenInvalid({ reason: error instanceof errors.JWTExpired ? "expired" : "invalid" })
      }).pipe(
        Effect.flatMap(({ payload }) =>
          Schema.decodeUnknown(Claims)(payload).pipe(Effect.mapError(() => new TokenInvalid({ reason: "invalid" })))
        ),
        Effect.filterOrFail((claims) => claims.typ === expected, () => new TokenInvalid({ reason: "invalid" })),
        Effect.withSpan("Tokens.verify", { attributes: { typ: expected } })
      )

    return { sign, verify, ttl }
  })
}) {}

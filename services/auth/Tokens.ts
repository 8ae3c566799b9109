import { Effect, Redacted, Schema } from "effect"
import { errors, jwtVerify, SignJWT } from "jose"
import { AppConfig } from "../../platform/Config.js"
import { LocalSecrets } from "../../platform/LocalSecrets.js"
import { spanAttributes, traced } from "../../platform/Traced.js"

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
/** Verified tokens remembered (the oldest forgotten first). */
const VERIFIED_CACHE_SIZE = 10_000
const CONTINUE_TTL_SECONDS = 600

export class Tokens extends Effect.Service<Tokens>()("Tokens", {
  effect: Effect.gen(function*() {
    const secrets = yield* LocalSecrets
    const config = yield* AppConfig
    // Imported once: given raw bytes, jose imports the key again on every sign and verify.
    const key = yield* Effect.promise(() =>
      crypto.subtle.importKey("raw", Redacted.value(secrets.jwtSecret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"])
    )
    const verified = new Map<string, Claims & { readonly exp: number }>()

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
      }).pipe(spanAttributes({ typ: claims.typ }))

    /**
     * A token that verified once verifies again until it expires: the same bytes carry the same
     * signature and claims, so its claims are kept (keyed by the whole token) and only the expiry
     * is checked on later requests. Revocation is not a matter of the signature: callers check it.
     */
    const remembered = (token: string) => {
      const claims = verified.get(token)
      if (claims === undefined) return undefined
      if (claims.exp * 1000 > Date.now()) return claims
      verified.delete(token)
      return undefined
    }
    const remember = (token: string, claims: Claims, exp: number) => {
      if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!)
      verified.set(token, { ...claims, exp })
    }

    const verifySignature = (token: string) =>
      Effect.tryPromise({
        // A token without an expiry (or an issue time) would live for ever: refused whatever its type.
        try: () => jwtVerify(token, key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ["HS256"], requiredClaims: ["exp", "iat", "sub"] }),
        catch: (error) => new TokenInvalid({ reason: error instanceof errors.JWTExpired ? "expired" : "invalid" })
      }).pipe(
        Effect.flatMap(({ payload }) =>
          Schema.decodeUnknown(Claims)(payload).pipe(
            Effect.tap((claims) => Effect.sync(() => remember(token, claims, payload.exp!))),
            Effect.mapError(() => new TokenInvalid({ reason: "invalid" }))
          )
        )
      )

    const verify = (token: string, expected: TokenType) =>
      Effect.suspend(() => {
        const known = remembered(token)
        return known !== undefined ? Effect.succeed<Claims>(known) : verifySignature(token)
      }).pipe(
        Effect.filterOrFail((claims) => claims.typ === expected, () => new TokenInvalid({ reason: "invalid" })),
        spanAttributes({ typ: expected })
      )

    return traced("Tokens", { sign, verify, ttl })
  })
}) {}

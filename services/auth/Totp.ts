import { Secret, TOTP } from "otpauth"

const ISSUER = "Builder Platform"

export const newTotpSecret = () => new Secret({ size: 20 }).base32

const totp = (secret: string, label: string) => new TOTP({ issuer: ISSUER, label, algorithm: "SHA1", digits: 6, period: 30, secret: Secret.fromBase32(secret) })

export const totpUri = (secret: string, email: string) => totp(secret, email).toString()

/** The time step the code belongs to (±1 step of drift), or undefined when it does not match. */
export const matchTotp = (secret: string, code: string, now = Date.now()): number | undefined => {
  if (!/^\d{6}$/.test(code)) return undefined
  const delta = totp(secret, "").validate({ token: code, timestamp: now, window: 1 })
  return delta === null ? undefined : Math.floor(now / 30_000) + delta
}

export const currentTotp = (secret: string, now = Date.now()) => totp(secret, "").generate({ timestamp: now })

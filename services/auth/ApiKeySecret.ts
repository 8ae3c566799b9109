import { createHash, randomBytes } from "node:crypto"

const PREFIX = "bpk_"

/** A new key: shown once; only its SHA-256 and its first characters are stored. */
export const generateApiKey = () => {
  const key = PREFIX + randomBytes(32).toString("base64url")
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 12) }
}

// Keys carry 256 random bits, so a fast hash is enough (no dictionary to guard against).
export const hashApiKey = (key: string) => createHash("sha256").update(key).digest("hex")

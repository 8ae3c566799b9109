import { Effect, Redacted, Schema } from "effect"
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { LocalSecrets } from "./LocalSecrets.js"

export class DecryptionFailed extends Schema.TaggedError<DecryptionFailed>()("DecryptionFailed", {
  message: Schema.String
}) {}

const VERSION = "v1"

/**
 * AES-256-GCM under `CREDENTIALS_KEY`. The associated data binds a ciphertext to its tenant and
 * record, so a value copied to another row fails to decrypt.
 */
export class CredentialsCipher extends Effect.Service<CredentialsCipher>()("CredentialsCipher", {
  effect: Effect.gen(function*() {
    const secrets = yield* LocalSecrets
    const key = Buffer.from(Redacted.value(secrets.credentialsKey))

    const encrypt = (plaintext: string, associatedData: string) =>
      Effect.sync(() => {
        const iv = randomBytes(12)
        const cipher = createCipheriv("aes-256-gcm", key, iv)
        cipher.setAAD(Buffer.from(associatedData, "utf8"))
        const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
        const tag = cipher.getAuthTag()
        return `${VERSION}:${Buffer.concat([iv, tag, body]).toString("base64")}`
      })

    const decrypt = (sealed: string, associatedData: string) =>
      Effect.try({
        try: () => {
          const [version, payload] = sealed.split(":")
          if (version !== VERSION || payload === undefined) throw new Error("unknown format")
          const raw = Buffer.from(payload, "base64")
          const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12))
          decipher.setAAD(Buffer.from(associatedData, "utf8"))
          decipher.setAuthTag(raw.subarray(12, 28))
          return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")
        },
        catch: () => new DecryptionFailed({ message: "stored credential failed authentication" })
      })

    return { encrypt, decrypt }
  })
}) {}

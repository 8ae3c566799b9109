import { Context, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { AppConfig } from "./Config.js"

export interface LocalSecretsShape {
  readonly jwtSecret: Redacted.Redacted<Uint8Array>
  /** 32 bytes for AES-256-GCM. */
  readonly credentialsKey: Redacted.Redacted<Uint8Array>
}

/**
 * `JWT_SECRET` and `CREDENTIALS_KEY` from the environment, else generated once and kept in
 * `DATA_DIR` so that tokens and stored credentials survive restarts.
 */
export class LocalSecrets extends Context.Tag("LocalSecrets")<LocalSecrets, LocalSecretsShape>() {
  static readonly layer = Layer.effect(
    LocalSecrets,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const jwt = yield* Option.match(config.jwtSecret, {
        onSome: (s) => Effect.succeed(new TextEncoder().encode(Redacted.value(s))),
        onNone: () => fileSecret(config.dataDir, "jwt_secret", "JWT_SECRET")
      })
      const credentials = yield* Option.match(config.credentialsKey, {
        onSome: (s) => Effect.succeed(Redacted.value(s)),
        onNone: () => fileSecret(config.dataDir, "credentials_key", "CREDENTIALS_KEY")
      })
      return { jwtSecret: Redacted.make(jwt), credentialsKey: Redacted.make(credentials) }
    })
  )
}

const fileSecret = (dataDir: string, name: string, variable: string) =>
  Effect.promise(async () => {
    const file = path.resolve(dataDir, name)
    const existing = await fs.readFile(file, "utf8").catch(() => undefined)
    if (existing !== undefined) return { bytes: new Uint8Array(Buffer.from(existing.trim(), "base64")), created: false }
    await fs.mkdir(path.dirname(file), { recursive: true })
    const bytes = randomBytes(32)
    await fs.writeFile(file, bytes.toString("base64"), { mode: 0o600 })
    return { bytes: new Uint8Array(bytes), created: true }
  }).pipe(
    Effect.tap(({ created }) => created ? Effect.logWarning(`${variable} is not set: generated one and stored it in ${dataDir}/${name}`) : Effect.void),
    Effect.map(({ bytes }) => bytes)
  )

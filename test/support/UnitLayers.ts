import { ConfigProvider, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { AppConfig } from "../../platform/Config.js"
import { LocalSecrets } from "../../platform/LocalSecrets.js"

/** AppConfig and LocalSecrets from a fixed map: no files, no environment. */
export const configLayer = (env: Record<string, string> = {}) =>
  Layer.mergeAll(AppConfig.layer, LocalSecrets.layer.pipe(Layer.provide(AppConfig.layer))).pipe(
    Layer.provide(
      Layer.setConfigProvider(
        ConfigProvider.fromMap(
          new Map(Object.entries({
            JWT_SECRET: randomBytes(32).toString("hex"),
            CREDENTIALS_KEY: randomBytes(32).toString("base64"),
            ...env
          }))
        )
      )
    )
  )

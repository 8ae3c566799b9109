import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect, Option } from "effect"
import { INITIAL_ADMIN_EMAIL, INITIAL_PASSWORD_FILE, type FirstAdmin } from "../auth/Bootstrap.js"
import { AppConfig } from "../../platform/Config.js"

/** Where everything is, once the platform answers: the API, its reference and the first admin's password. */
export const startBanner = (created: Option.Option<FirstAdmin>) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const base = config.publicBaseUrl
    const file = path.resolve(config.dataDir, INITIAL_PASSWORD_FILE)
    const kept = yield* Effect.promise(() => fs.access(file).then(() => true, () => false))
    const admin = Option.match(created, {
      onSome: (a) =>
        a.passwordFile !== undefined
          ? `first admin: ${a.email} (tenant '${a.tenant}'), password in ${a.passwordFile}`
          : `first admin: ${a.email} (tenant '${a.tenant}')`,
      onNone: () => kept ? `first admin: ${INITIAL_ADMIN_EMAIL}, password in ${file}` : undefined
    })
    yield* Effect.log(
      [`Builder Platform is ready: API ${base}/api/v1, reference ${base}/docs, OpenAPI ${base}/api/v1/openapi.json`, admin]
        .filter((part) => part !== undefined)
        .join("; ")
    )
  })

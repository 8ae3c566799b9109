import { Effect, Option } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { AppConfig } from "../../platform/Config.js"
import { type FirstAdmin, INITIAL_ADMIN_EMAIL, INITIAL_PASSWORD_FILE } from "../auth/Bootstrap.js"

/**
 * Where everything is: the console, the API, its reference and the first admin's password. Composed before the
 * platform answers, so that the line is logged the moment it does (a newcomer's first request may
 * follow at once).
 */
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
    return Effect.log(
      [`Builder Platform is ready: console ${base}/, API ${base}/api/v1, reference ${base}/docs, OpenAPI ${base}/api/v1/openapi.json`, admin]
        .filter((part) => part !== undefined)
        .join("; ")
    )
  })

import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { requireJwt } from "../../../schemas/Authorization.js"
import { Forbidden, notFound } from "../../../schemas/Errors.js"
import { asCaller } from "../../../schemas/Principal.js"
import { ApiKeys } from "../ApiKeys.js"
import { Directory } from "../Directory.js"
import { SecondFactor } from "../SecondFactor.js"
import { Sessions } from "../Sessions.js"

export const AuthMeHttp = HttpApiBuilder.group(PlatformApi, "authMe", (handlers) =>
  Effect.gen(function*() {
    const directory = yield* Directory
    const sessions = yield* Sessions
    const second = yield* SecondFactor
    return handlers
      .handle("me", () => asCaller(directory.me))
      .handle("myTenants", () => asCaller(directory.myTenants))
      .handle("switchTenant", ({ payload }) =>
        asCaller((principal) =>
          Effect.gen(function*() {
            yield* requireJwt(principal)
            return yield* sessions.switchTenant(principal, payload.target_tenant_id).pipe(
              Effect.catchTags({
                NotMember: () => Effect.fail(notFound("Tenant")),
                ReauthenticationRequired: () =>
                  Effect.fail(
                    new Forbidden({
                      code: "REAUTHENTICATION_REQUIRED",
                      message:
                        "This session comes from another workspace's identity provider: sign in to that workspace (password, emailed code or its own SSO)"
                    })
                  )
              })
            )
          })
        ))
      .handle("totpEnroll", () =>
        asCaller((principal) =>
          Effect.gen(function*() {
            yield* requireJwt(principal)
            return yield* second.enrollForUser(principal)
          })
        ))
      .handle("totpActivate", ({ payload }) =>
        asCaller((principal) =>
          Effect.gen(function*() {
            yield* requireJwt(principal)
            return yield* second.activateForUser(principal, payload.code)
          })
        ))
  }))

export const ApiKeysHttp = HttpApiBuilder.group(PlatformApi, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    return handlers
      .handle("create", ({ payload }) => asCaller((p) => keys.create(p, payload)))
      .handle("list", ({ urlParams }) => asCaller((p) => keys.list(p, urlParams)))
      .handle("update", ({ path, payload }) => asCaller((p) => keys.update(p, path.id, payload)))
      .handle("revoke", ({ path }) => asCaller((p) => keys.revoke(p, path.id)))
  }))

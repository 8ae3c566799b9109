import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { requireJwt } from "../../../schemas/Authorization.js"
import { Forbidden, notFound } from "../../../schemas/Errors.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
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
      .handle("me", () => Effect.flatMap(CurrentPrincipal, directory.me))
      .handle("myTenants", () => Effect.flatMap(CurrentPrincipal, directory.myTenants))
      .handle("switchTenant", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* requireJwt(principal)
          return yield* sessions.switchTenant(principal, payload.target_tenant_id).pipe(
            Effect.catchTags({
              NotMember: () => Effect.fail(notFound("Tenant")),
              ReauthenticationRequired: () =>
                Effect.fail(
                  new Forbidden({
                    code: "REAUTHENTICATION_REQUIRED",
                    message: "This session comes from another workspace's identity provider: sign in to that workspace (password, emailed code or its own SSO)"
                  })
                )
            })
          )
        }))
      .handle("totpEnroll", () =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* requireJwt(principal)
          return yield* second.enrollForUser(principal)
        }))
      .handle("totpActivate", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* requireJwt(principal)
          return yield* second.activateForUser(principal, payload.code)
        }))
  }))

export const ApiKeysHttp = HttpApiBuilder.group(PlatformApi, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => keys.create(p, payload)))
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => keys.list(p, urlParams)))
      .handle("update", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => keys.update(p, path.id, payload)))
      .handle("revoke", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => keys.revoke(p, path.id)))
  }))

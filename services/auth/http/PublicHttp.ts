import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { Begin } from "../Begin.js"
import { SecondFactor } from "../SecondFactor.js"
import { Sessions } from "../Sessions.js"
import { Sso } from "../Sso.js"

export const AuthPublicHttp = HttpApiBuilder.group(PlatformApi, "authPublic", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const second = yield* SecondFactor
    const sso = yield* Sso
    const begin = yield* Begin
    return handlers
      .handle("login", ({ payload }) => sessions.login(payload))
      .handle("refresh", ({ payload }) => sessions.refresh(payload.refresh_token))
      .handle("begin", ({ payload }) => begin.begin(payload.email))
      .handle("ssoContinue", ({ urlParams }) =>
        sso.continueUrl(urlParams.token).pipe(Effect.map((url) => HttpServerResponse.redirect(url, { status: 302 }))))
      .handle("ssoCallback", ({ urlParams }) => sso.callback(urlParams))
      .handle("otpRequest", ({ payload }) => second.requestOtp(payload))
      .handle("otpVerify", ({ payload }) => second.verifyOtp(payload))
      .handle("totpEnrollPartial", ({ payload }) => second.enrollForPartial(payload.partial_auth_token))
      .handle("totpVerify", ({ payload }) => second.verifyTotp(payload.partial_auth_token, payload.code))
  }))

import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { csrfFailure, REFRESH_COOKIE } from "../../../platform/BrowserSession.js"
import { AppConfig } from "../../../platform/Config.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { Forbidden, unauthorized } from "../../../schemas/Errors.js"
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
    const config = yield* AppConfig

    /** The token in the body, else the browser's refresh cookie (which must pass the CSRF checks). */
    const refreshToken = (fromBody: string | undefined) =>
      Effect.gen(function*() {
        if (fromBody !== undefined) return fromBody
        const request = yield* HttpServerRequest.HttpServerRequest
        const cookie = request.cookies[REFRESH_COOKIE]
        if (cookie === undefined || cookie === "") return yield* unauthorized("Send refresh_token or the refresh cookie")
        const failure = csrfFailure(config, request)
        if (failure !== undefined) return yield* new Forbidden({ code: "CSRF_CHECK_FAILED", message: failure })
        return cookie
      })
    return handlers
      .handle("login", ({ payload }) => sessions.login(payload))
      .handle("refresh", ({ payload }) => Effect.flatMap(refreshToken(payload.refresh_token), sessions.refresh))
      .handle("logout", () => Effect.void)
      .handle("begin", ({ payload }) => begin.begin(payload.email))
      .handle("ssoContinue", ({ urlParams }) => sso.continueUrl(urlParams.token).pipe(Effect.map((url) => HttpServerResponse.redirect(url, { status: 302 }))))
      .handle("ssoCallback", ({ urlParams }) => sso.callback(urlParams))
      .handle("otpRequest", ({ payload }) => second.requestOtp(payload))
      .handle("otpVerify", ({ payload }) => second.verifyOtp(payload))
      .handle("totpEnrollPartial", ({ payload }) => second.enrollForPartial(payload.partial_auth_token))
      .handle("totpVerify", ({ payload }) => second.verifyTotp(payload.partial_auth_token, payload.code))
  }))

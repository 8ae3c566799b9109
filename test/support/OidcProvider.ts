import { Context, Effect, Layer } from "effect"
import type { Server } from "node:http"
import Provider from "oidc-provider"
import type { Page } from "playwright-core"
import { freePort } from "../../platform/FreePort.js"

export const CLIENT_ID = "builder-platform"
export const CLIENT_SECRET = "a-long-client-secret-for-tests-only-0123456789"

/** A real OpenID provider (npm `oidc-provider`) on loopback, with its development login form. */
export class OidcProvider extends Context.Tag("OidcProvider")<OidcProvider, { readonly issuer: string }>() {
  static readonly layer = (redirectUri: string, options: { readonly accessTokenSeconds?: number; readonly refreshTokens?: boolean } = {}) =>
    Layer.scoped(
      OidcProvider,
      Effect.gen(function*() {
        const port = yield* freePort
        const issuer = `http://127.0.0.1:${port}`
        const provider = new Provider(issuer, {
          clients: [{
            client_id: CLIENT_ID,
            client_secret: CLIENT_SECRET,
            redirect_uris: [redirectUri],
            grant_types: options.refreshTokens === true ? ["authorization_code", "refresh_token"] : ["authorization_code"],
            response_types: ["code"],
            token_endpoint_auth_method: "client_secret_post"
          }],
          claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
          findAccount: (_ctx, sub) => ({
            accountId: sub,
            claims: () => ({ sub, email: sub, email_verified: true, name: `Name of ${sub}` })
          }),
          features: { devInteractions: { enabled: true } },
          ...(options.accessTokenSeconds !== undefined ? { ttl: { AccessToken: options.accessTokenSeconds } } : {}),
          ...(options.refreshTokens === true ? { scopes: ["openid", "offline_access", "orders"] } : {}),
          pkce: { required: () => true }
        })
        const server: Server = yield* Effect.acquireRelease(
          Effect.async<Server>((resume) => {
            const s = provider.listen(port, "127.0.0.1", () => resume(Effect.succeed(s)))
          }),
          (s) => Effect.async<void>((resume) => void s.close(() => resume(Effect.void)))
        )
        void server
        return { issuer }
      })
    )
}

/** Follows a browser's path through the provider's login and consent pages to our callback. */
export const signInThroughProvider = (authorizationUrl: string, login: string, isCallback = (url: URL) => url.pathname.endsWith("/auth/sso/callback")) =>
  Effect.promise(async () => {
    const jar = new Map<string, string>()
    const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
    const remember = (response: Response) => {
      for (const c of response.headers.getSetCookie()) {
        const [pair] = c.split(";")
        const [name, ...rest] = (pair ?? "").split("=")
        if (name !== undefined) jar.set(name.trim(), rest.join("="))
      }
    }
    let url = authorizationUrl
    for (let hop = 0; hop < 12; hop++) {
      const target = new URL(url)
      if (isCallback(target)) return url
      const match = /\/interaction\/([^/?]+)$/.exec(target.pathname)
      let response: Response
      if (match !== null) {
        const page = await fetch(url, { headers: { cookie: cookieHeader() }, redirect: "manual" })
        remember(page)
        const html = await page.text()
        const prompt = html.includes("name=\"prompt\" value=\"consent\"") ? "consent" : "login"
        response = await fetch(url, {
          method: "POST",
          headers: { cookie: cookieHeader(), "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(prompt === "login" ? { prompt, login, password: "any" } : { prompt }).toString(),
          redirect: "manual"
        })
      } else {
        response = await fetch(url, { headers: { cookie: cookieHeader() }, redirect: "manual" })
      }
      remember(response)
      const location = response.headers.get("location")
      if (location === null) throw new Error(`provider stopped at ${url}: ${response.status} ${await response.text()}`)
      url = new URL(location, url).toString()
    }
    throw new Error("too many redirects")
  })

/** In a browser: the provider's development login form, then its consent page when it shows one. */
export const providerLoginInBrowser = (page: Page, issuer: string, login: string) =>
  Effect.promise(async () => {
    await page.waitForURL((url) => url.origin === issuer)
    await page.locator("input[name=\"login\"]").fill(login)
    await page.locator("input[name=\"password\"]").fill("any")
    await page.locator("button[type=\"submit\"]").click()
    await page.waitForURL((url) => url.origin !== issuer || url.pathname.includes("/interaction/"))
    if (new URL(page.url()).origin === issuer) await page.locator("button[type=\"submit\"]").click()
  })

import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { mcpPeer } from "../support/McpPeer.js"
import { CLIENT_ID, CLIENT_SECRET, OidcProvider, signInThroughProvider } from "../support/OidcProvider.js"
import { peerApi } from "../support/PeerApi.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { ADMIN_EMAIL } from "../support/TestPlatform.js"

const REDIRECT = "http://127.0.0.2:9/integrations/oauth2/callback"
const api = "/api/v1/integrations"

/** The platform (127.0.0.1 allowed: the authorization server listens there) and a real OAuth server issuing 20 s tokens with refresh tokens. */
const PlatformLive = RunPlatformLive({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1,127.0.0.2" }).pipe(
  Layer.provideMerge(OidcProvider.layer(REDIRECT, { accessTokenSeconds: 20, refreshTokens: true }))
)

layer(PlatformLive, { excludeTestServices: true, timeout: "60 seconds" })("integration OAuth connections", (it) => {
  it.scoped("authorize with PKCE and state, exchange the code, call as the user (refreshing the token), revoke", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const { issuer } = yield* OidcProvider
      const peer = yield* peerApi("http://127.0.0.2:9/")
      const entry = yield* http("POST", `${api}/catalog`, {
        token: admin,
        body: {
          name: "oauth-peer",
          base_url: peer.baseUrl,
          auth: { type: "oauth2", authorize_url: `${issuer}/auth`, token_url: `${issuer}/token`, scopes: ["openid", "offline_access"] },
          functions: [{ name: "profile", kind: "http", method: "GET", path: "/profile" }]
        }
      })
      assert.strictEqual(entry.status, 201, entry.text)
      const id = (yield* http("POST", `${api}/integrations`, { token: admin, body: { catalog_id: entry.body.id } })).body.id as string
      const unconfigured = yield* http("POST", `${api}/integrations/${id}/oauth2/authorize`, { token: admin, body: { redirect_uri: REDIRECT } })
      assert.strictEqual(unconfigured.status, 422)
      assert.strictEqual(unconfigured.body.code, "OAUTH_NOT_CONFIGURED")
      yield* http("PUT", `${api}/integrations/${id}/credentials`, {
        token: admin,
        body: { capability: "agent_tool", credentials: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET } }
      })
      yield* http("POST", `${api}/integrations/${id}/functions/profile/enable`, { token: admin })
      const notYet = yield* http("POST", `${api}/execute`, { token: admin, body: { function_name: "profile" } })
      assert.include(notYet.body.error, "Connect your account")
      assert.strictEqual((yield* http("GET", `${api}/integrations/${id}/connections/me`, { token: admin })).status, 404)

      const started = yield* http("POST", `${api}/integrations/${id}/oauth2/authorize`, { token: admin, body: { redirect_uri: REDIRECT } })
      assert.strictEqual(started.status, 200, started.text)
      const url = new URL(started.body.authorization_url)
      assert.strictEqual(url.searchParams.get("code_challenge_method"), "S256")
      assert.strictEqual(url.searchParams.get("state"), started.body.state)
      const back = new URL(
        yield* signInThroughProvider(started.body.authorization_url, "ada@example.test", (u) => u.pathname === "/integrations/oauth2/callback")
      )
      const code = back.searchParams.get("code")!
      assert.strictEqual(back.searchParams.get("state"), started.body.state)

      // The state is the caller's and single-use.
      const other = yield* createMember(admin, "builder")
      const otherToken = yield* loginToken(other.email, other.password)
      const stolen = yield* http("POST", `${api}/integrations/${id}/oauth2/callback`, { token: otherToken, body: { code, state: started.body.state } })
      assert.strictEqual(stolen.status, 400)
      assert.strictEqual(stolen.body.code, "OAUTH_STATE_INVALID")
      const connected = yield* http("POST", `${api}/integrations/${id}/oauth2/callback`, { token: admin, body: { code, state: started.body.state } })
      assert.strictEqual(connected.status, 200, connected.text)
      assert.deepInclude(connected.body, { integration_id: id, connected: true, has_refresh_token: true })
      assert.notProperty(connected.body, "access_token")
      const replay = yield* http("POST", `${api}/integrations/${id}/oauth2/callback`, { token: admin, body: { code, state: started.body.state } })
      assert.strictEqual(replay.status, 400)
      assert.isTrue((yield* http("GET", `${api}/integrations/${id}`, { token: admin })).body.has_active_connections)

      // Calls carry the user's token; a token within 30 s of expiry (these live 20 s) is refreshed first.
      const first = yield* http("POST", `${api}/execute`, { token: admin, body: { function_name: "profile" } })
      assert.strictEqual(first.body.status, "success", first.text)
      const second = yield* http("POST", `${api}/execute`, { token: admin, body: { function_name: "profile" } })
      assert.match(first.body.output.authorization, /^Bearer \S+$/)
      assert.notStrictEqual(second.body.output.authorization, first.body.output.authorization, "each call refreshed the token")
      const outsiderCall = yield* http("POST", `${api}/execute`, { token: otherToken, body: { function_name: "profile" } })
      assert.include(outsiderCall.body.error, "Connect your account", "another user's calls do not use this connection")

      // An MCP server signed into with the user's connection (oauth2_authcode).
      const mcp = yield* mcpPeer
      const server = yield* http("POST", `${api}/mcp-servers`, {
        token: admin,
        body: { name: "As the user", server_url: `${mcp.baseUrl}/user/mcp`, auth_type: "oauth2_authcode" }
      })
      assert.strictEqual(server.status, 201, server.text)
      const patched = yield* http("PATCH", `${api}/mcp-servers/${server.body.id}`, { token: admin, body: { credentials: { integration_id: id } } })
      assert.deepInclude(patched.body, { tool_count: 2, discovery_error: null })
      assert.isAbove(mcp.bearers.length, 0)
      const refresh = yield* http("POST", `${api}/mcp-servers/${server.body.id}/refresh-tools`, { token: otherToken })
      assert.strictEqual(refresh.status, 422, "another user has no connection")
      assert.include(refresh.body.message, "Connect your account")

      // Another tenant's MCP server cannot name this tenant's integration, even for a user in both.
      const elsewhere = yield* createTenant(admin, `elsewhere-${Date.now()}`)
      yield* createMember(admin, "system_admin", { tenantId: elsewhere.id, email: ADMIN_EMAIL })
      const inElsewhere = (yield* http("POST", "/api/v1/auth/switch-tenant", { token: admin, body: { target_tenant_id: elsewhere.id } })).body
        .access_token as string
      const foreign = yield* http("POST", `${api}/mcp-servers`, {
        token: inElsewhere,
        body: { name: "Borrowing", server_url: `${mcp.baseUrl}/user/mcp`, auth_type: "oauth2_authcode" }
      })
      assert.strictEqual(foreign.status, 201, foreign.text)
      const seen = mcp.bearers.length
      const borrow = yield* http("PATCH", `${api}/mcp-servers/${foreign.body.id}`, { token: inElsewhere, body: { credentials: { integration_id: id } } })
      assert.strictEqual(borrow.status, 422, borrow.text)
      assert.deepStrictEqual(borrow.body.details[0].path, ["credentials", "integration_id"])
      assert.strictEqual((yield* http("POST", `${api}/mcp-servers/${foreign.body.id}/refresh-tools`, { token: inElsewhere })).status, 422)
      assert.strictEqual(mcp.bearers.length, seen, "no token of the first tenant reached the server")

      const me = yield* http("GET", `${api}/integrations/${id}/connections/me`, { token: admin })
      assert.strictEqual(me.status, 200)
      assert.isAbove(new Date(me.body.expires_at).getTime(), Date.now())
      assert.strictEqual((yield* http("DELETE", `${api}/integrations/${id}/connections/me`, { token: admin })).status, 204)
      assert.strictEqual((yield* http("GET", `${api}/integrations/${id}/connections/me`, { token: admin })).status, 404)
      assert.include((yield* http("POST", `${api}/execute`, { token: admin, body: { function_name: "profile" } })).body.error, "Connect your account")
    }))
})

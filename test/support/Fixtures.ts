import { Effect } from "effect"
import type { Role } from "../../schemas/Roles.js"
import { http, loginToken, request } from "./Http.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatform } from "./TestPlatform.js"

const adminTokens = new Map<string, string>()

/**
 * The bootstrap admin's access token: the one signed in earlier for this server while the server
 * still accepts it (a sign-in costs a deliberately slow scrypt check), else a new sign-in.
 */
export const adminToken = Effect.gen(function*() {
  const { baseUrl } = yield* TestPlatform
  const known = adminTokens.get(baseUrl)
  if (known !== undefined && (yield* request(baseUrl, "GET", "/api/v1/auth/users/me", { token: known })).status === 200) return known
  const token = yield* loginToken(ADMIN_EMAIL, ADMIN_PASSWORD)
  adminTokens.set(baseUrl, token)
  return token
})

let counter = 0
export const uniqueEmail = (prefix = "user") => `${prefix}.${Date.now().toString(36)}.${counter++}@example.test`

/** A member with a password in the caller's tenant (or `tenant_id`), and a token for it. */
export const createMember = (
  token: string,
  role: Role,
  options: { readonly tenantId?: string; readonly email?: string; readonly password?: string } = {}
) =>
  Effect.gen(function*() {
    const email = options.email ?? uniqueEmail(role)
    const password = options.password ?? "password-123"
    const created = yield* http("POST", "/api/v1/auth/users", {
      token,
      body: { email, name: `${role} person`, password, role, ...(options.tenantId ? { tenant_id: options.tenantId } : {}) }
    })
    if (created.status !== 201) return yield* Effect.dieMessage(`create user: ${created.status} ${created.text}`)
    return { id: created.body.id as string, email, password }
  })

export const createTenant = (token: string, slug: string) =>
  http("POST", "/api/v1/auth/tenants", { token, body: { name: `Tenant ${slug}`, slug } }).pipe(
    Effect.flatMap((r) => (r.status === 201 ? Effect.succeed(r.body as { id: string; slug: string }) : Effect.dieMessage(r.text)))
  )

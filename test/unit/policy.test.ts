import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { requireCanGrant, requireJwt, requireRole, USER_ADMINS } from "../../schemas/Authorization.js"
import type { Principal } from "../../schemas/Principal.js"
import { isAtLeast, type Role, Roles } from "../../schemas/Roles.js"
import { defaultTenantSettings } from "../../schemas/Tenant.js"
import { inScope } from "../../services/auth/Credentials.js"

const principal = (role: Role, authMethod: "jwt" | "api_key" = "jwt") =>
  ({
    userId: "11111111-1111-4111-8111-111111111111",
    tenantId: "22222222-2222-4222-8222-222222222222",
    email: "p@example.test",
    role,
    authMethod,
    amr: [],
    settings: defaultTenantSettings
  }) as unknown as Principal

const allowed = (e: Effect.Effect<void, unknown>) => Either.isRight(Effect.runSync(Effect.either(e)))

describe("roles and policies", () => {
  it("roles are ordered from env_admin down to no_access", () => {
    assert.deepStrictEqual([...Roles], ["env_admin", "system_admin", "builder_admin", "user_admin", "builder", "user", "no_access"])
    assert.isTrue(isAtLeast("system_admin", "builder"))
    assert.isFalse(isAtLeast("user", "builder"))
  })

  it("nobody grants a role above their own", () => {
    for (const granter of Roles) {
      for (const granted of Roles) {
        assert.strictEqual(allowed(requireCanGrant(principal(granter), granted)), isAtLeast(granter, granted), `${granter}->${granted}`)
      }
    }
  })

  it("user administration is for env_admin, system_admin and user_admin", () => {
    for (const role of Roles) {
      assert.strictEqual(allowed(requireRole(principal(role), USER_ADMINS)), USER_ADMINS.includes(role), role)
    }
  })

  it("some operations need a signed-in user, not a key", () => {
    assert.isTrue(allowed(requireJwt(principal("user"))))
    assert.isFalse(allowed(requireJwt(principal("env_admin", "api_key"))))
  })

  it("key scopes: read covers GET and HEAD, write the rest; resources are service prefixes", () => {
    assert.isTrue(inScope(["read"], null, "GET", "/api/v1/workflow/workflows"))
    assert.isFalse(inScope(["read"], null, "POST", "/api/v1/workflow/workflows"))
    assert.isTrue(inScope(["read", "write"], ["workflow"], "DELETE", "/api/v1/workflow/workflows/x"))
    assert.isFalse(inScope(null, ["workflow"], "GET", "/api/v1/chat/sessions"))
    assert.isTrue(inScope(null, null, "PATCH", "/anything"))
  })
})

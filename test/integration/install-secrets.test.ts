import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { credentialsAad, InstallSecrets } from "../../services/integrations/InstallSecrets.js"
import { TestSqlLive } from "../support/TestSql.js"
import { configLayer } from "../support/UnitLayers.js"

const Live = InstallSecrets.Default.pipe(
  Layer.provideMerge(CredentialsCipher.Default),
  Layer.provideMerge(TestSqlLive),
  Layer.provide(configLayer())
)

// Issue 31, point 5: an integration id that a body or a configuration names resolves inside the
// caller's tenant only, whoever asks: the repository joins the install on the tenant.
layer(Live, { excludeTestServices: true })("an install's secrets are its tenant's alone", (it) => {
  it.effect("credentials and OAuth connections of tenant A's install are none to tenant B, and A's to A", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const cipher = yield* CredentialsCipher
      const secrets = yield* InstallSecrets
      const [a, b, user, entry, install] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()]
      yield* sql`INSERT INTO tenants (id, name, slug) VALUES (${a}, 'A', ${`a-${a}`}), (${b}, 'B', ${`b-${b}`})`
      yield* sql`INSERT INTO catalog_entries (id, tenant_id, name, display_name, category, auth) VALUES (${entry}, ${a}, 'crm', 'CRM', 'crm', '{"type":"none"}')`
      yield* sql`INSERT INTO tenant_integrations (id, tenant_id, catalog_id) VALUES (${install}, ${a}, ${entry})`
      const sealed = yield* cipher.encrypt(JSON.stringify({ api_key: "A's key" }), credentialsAad(install, "agent_tool"))
      yield* sql`INSERT INTO integration_credentials (integration_id, capability, sealed) VALUES (${install}, 'agent_tool', ${sealed})`
      yield* sql`INSERT INTO integration_connections (integration_id, user_id, sealed) VALUES (${install}, ${user}, 'sealed tokens')`

      assert.deepStrictEqual(yield* secrets.credentials(a, install), Option.some({ api_key: "A's key" }))
      assert.isTrue(Option.isSome(yield* secrets.connection(a, install, user)))
      assert.isTrue(yield* secrets.owns(a, install))
      assert.isTrue(Option.isNone(yield* secrets.credentials(b, install)))
      assert.isTrue(Option.isNone(yield* secrets.connection(b, install, user)))
      assert.isFalse(yield* secrets.owns(b, install))
      assert.isTrue(Option.isNone(yield* secrets.credentials(a, "not-a-uuid")))
    }))
})

import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import type { TenantId } from "../../schemas/Ids.js"
import { SessionsRepo } from "../../services/chat/SessionsRepo.js"
import { TestSqlLive } from "../support/TestSql.js"

layer(SessionsRepo.Default.pipe(Layer.provideMerge(TestSqlLive)), { excludeTestServices: true })("rows decoded at the repository boundary", (it) => {
  it.effect("a row read back matches its schema; once a column changes type, the read fails naming the table", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sessions = yield* SessionsRepo
      const tenantId = randomUUID() as TenantId
      const userId = randomUUID()
      const workflowId = randomUUID()
      yield* sql`INSERT INTO tenants (id, name, slug) VALUES (${tenantId}, 'Rows', ${`rows-${tenantId}`})`
      yield* sql`INSERT INTO users (id, email, name) VALUES (${userId}, ${`${userId}@example.test`}, 'Row')`
      yield* sql`INSERT INTO workflows (id, tenant_id, name, interaction_type) VALUES (${workflowId}, ${tenantId}, 'Chat', 'chat')`
      const created = yield* sessions.insert({ tenant_id: tenantId, workflow_id: workflowId, user_id: userId, input_params: {}, channel: "web" })
      const read = yield* sessions.get(tenantId, created.id)
      assert.isTrue(Option.isSome(read))
      assert.instanceOf(Option.getOrThrow(read).created_at, Date)

      yield* sql`ALTER TABLE chat_sessions ALTER COLUMN single_shot TYPE text USING single_shot::text`
      const exit = yield* Effect.exit(sessions.get(tenantId, created.id))
      assert.isTrue(Exit.isFailure(exit))
      const defect = Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
      assert.include(defect, "rows of chat_sessions do not match their schema")
      assert.include(defect, "single_shot")
    }))
})

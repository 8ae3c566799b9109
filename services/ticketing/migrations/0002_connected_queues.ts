import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Connected queues: the Zendesk group a queue stands for, and the client_request_id of each
 * ticket raised there with the Zendesk ticket it made (the idempotency record; the ticket itself
 * stays in Zendesk, no copy is kept).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE ticket_queues ADD COLUMN external_group_id bigint`
  yield* sql`
    CREATE TABLE ticket_external_requests (
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      client_request_id text NOT NULL,
      connection_id uuid NOT NULL,
      external_id bigint NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, client_request_id)
    )`
})

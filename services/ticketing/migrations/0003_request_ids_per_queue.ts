import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A ticket's client_request_id is unique within its queue (it was within the tenant, so a retry
 * in one queue answered a ticket of another, even a deleted one). A deleted ticket frees its key.
 * Connected queues' idempotency records are kept per queue as well: a record whose connection
 * serves several queues goes to the oldest of them.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP INDEX tickets_client_request`
  yield* sql`CREATE UNIQUE INDEX tickets_client_request ON tickets (queue_id, client_request_id) WHERE client_request_id IS NOT NULL AND deleted_at IS NULL`
  yield* sql`ALTER TABLE ticket_external_requests ADD COLUMN queue_id uuid REFERENCES ticket_queues(id) ON DELETE CASCADE`
  yield* sql`
    UPDATE ticket_external_requests r SET queue_id = (
      SELECT q.id FROM ticket_queues q WHERE q.tenant_id = r.tenant_id AND q.connection_id = r.connection_id ORDER BY q.created_at, q.id LIMIT 1
    )`
  yield* sql`DELETE FROM ticket_external_requests WHERE queue_id IS NULL`
  yield* sql`ALTER TABLE ticket_external_requests DROP CONSTRAINT ticket_external_requests_pkey`
  yield* sql`ALTER TABLE ticket_external_requests ALTER COLUMN queue_id SET NOT NULL, ADD PRIMARY KEY (queue_id, client_request_id)`
})

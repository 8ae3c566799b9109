import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Queues (one per user group) and the built-in desk's tickets, comments and activity. The list
 * indexes serve a queue's page with its filters and sorts: `tickets_queue_created` (the default
 * newest-first order and the created_after/before range), `tickets_queue_status`,
 * `tickets_queue_priority`, `tickets_queue_updated`, `tickets_queue_number`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE ticket_queues (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      group_id uuid NOT NULL,
      name text NOT NULL,
      label text NOT NULL,
      backend text NOT NULL,
      connection_id uuid,
      routing_description text,
      request_types text[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, group_id)
    )`
  yield* sql`
    CREATE TABLE tickets (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      queue_id uuid NOT NULL REFERENCES ticket_queues(id) ON DELETE CASCADE,
      number bigserial NOT NULL,
      title text NOT NULL,
      description text NOT NULL DEFAULT '',
      status text NOT NULL DEFAULT 'OPEN',
      status_rank int NOT NULL DEFAULT 0,
      priority text NOT NULL,
      priority_rank int NOT NULL,
      type text,
      labels text[] NOT NULL DEFAULT '{}',
      requester_email text NOT NULL,
      assignee_email text,
      parent_ticket_id uuid REFERENCES tickets(id),
      client_request_id text,
      resolution text,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      closed_at timestamptz,
      deleted_at timestamptz
    )`
  yield* sql`CREATE UNIQUE INDEX tickets_client_request ON tickets (tenant_id, client_request_id) WHERE client_request_id IS NOT NULL`
  yield* sql`CREATE INDEX tickets_queue_created ON tickets (queue_id, created_at DESC, id) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX tickets_queue_status ON tickets (queue_id, status, created_at DESC) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX tickets_queue_priority ON tickets (queue_id, priority_rank, number) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX tickets_queue_updated ON tickets (queue_id, updated_at, number) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX tickets_queue_number ON tickets (queue_id, number) WHERE deleted_at IS NULL`
  yield* sql`
    CREATE TABLE ticket_comments (
      id uuid PRIMARY KEY,
      ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
      author_email text NOT NULL,
      body text NOT NULL,
      visibility text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`
  yield* sql`
    CREATE TABLE ticket_events (
      id bigserial PRIMARY KEY,
      ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
      kind text NOT NULL,
      field text,
      old_value text,
      new_value text,
      actor text NOT NULL,
      actor_type text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`
  yield* sql`CREATE INDEX ticket_events_ticket ON ticket_events (ticket_id, id)`
})

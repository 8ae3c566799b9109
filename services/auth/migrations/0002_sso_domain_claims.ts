import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * An email domain routes sign-in to a workspace's identity provider only once an env_admin has
 * approved that workspace's claim, and at most one workspace holds it approved. Domains configured
 * before this migration become pending claims: an env_admin approves them again.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE sso_domain_claims (
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      domain text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
      requested_by uuid,
      requested_at timestamptz NOT NULL DEFAULT now(),
      decided_by uuid,
      decided_at timestamptz,
      PRIMARY KEY (tenant_id, domain)
    )`
  yield* sql`CREATE UNIQUE INDEX sso_domain_claims_approved ON sso_domain_claims (domain) WHERE status = 'approved'`
  yield* sql`
    INSERT INTO sso_domain_claims (tenant_id, domain, status)
    SELECT DISTINCT tenant_id, lower(d), 'pending' FROM sso_configs, unnest(email_domains) AS d
    ON CONFLICT DO NOTHING`
})

import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE tenants (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      slug text NOT NULL UNIQUE,
      settings jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY,
      email text NOT NULL,
      name text NOT NULL,
      password_hash text,
      totp_secret_enc text,
      totp_enabled boolean NOT NULL DEFAULT false,
      totp_last_step bigint,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX users_email_lower ON users (lower(email))`
  yield* sql`
    CREATE TABLE memberships (
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role text NOT NULL,
      status text NOT NULL DEFAULT 'active',
      last_login_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, user_id)
    )`
  yield* sql`CREATE INDEX memberships_user ON memberships (user_id)`
  yield* sql`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      owner_user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name text NOT NULL,
      key_hash text NOT NULL UNIQUE,
      key_prefix text NOT NULL,
      key_type text NOT NULL,
      system_role text,
      operation_scope jsonb,
      resource_scope jsonb,
      expires_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at DESC)`
  yield* sql`
    CREATE TABLE user_groups (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      parent_group_id uuid REFERENCES user_groups(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, name)
    )`
  yield* sql`
    CREATE TABLE group_members (
      group_id uuid NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      tenant_id uuid NOT NULL,
      is_group_admin boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (group_id, user_id)
    )`
  yield* sql`
    CREATE TABLE otp_codes (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      code_hash text NOT NULL,
      attempts int NOT NULL DEFAULT 0,
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX otp_codes_user ON otp_codes (user_id, created_at DESC)`
  yield* sql`
    CREATE TABLE sso_configs (
      tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
      issuer text NOT NULL,
      client_id text NOT NULL,
      client_secret_enc text,
      email_domains text[] NOT NULL DEFAULT '{}',
      scopes text NOT NULL,
      auto_provision boolean NOT NULL DEFAULT false,
      default_role text NOT NULL DEFAULT 'user',
      enabled boolean NOT NULL DEFAULT true,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE sso_states (
      state text PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      code_verifier text NOT NULL,
      nonce text NOT NULL,
      expires_at timestamptz NOT NULL
    )`
})

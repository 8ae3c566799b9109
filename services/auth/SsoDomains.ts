import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { Audit } from "../../platform/Audit.js"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { SsoDomainStatus } from "../../schemas/Auth.js"
import { requireEnvAdmin } from "../../schemas/Authorization.js"
import { conflict, notFound } from "../../schemas/Errors.js"
import { TenantId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"

const ClaimRow = Schema.Struct({
  tenant_id: TenantId,
  domain: Schema.String,
  status: SsoDomainStatus,
  requested_at: Timestamp,
  decided_at: Schema.NullOr(Timestamp)
})
const claimRows = decodeRows("sso_domain_claims", ClaimRow)
const columns = "tenant_id, domain, status, requested_at, decided_at"

const isUniqueViolation = (e: { cause?: unknown }) => (e.cause as { code?: string } | undefined)?.code === "23505"

const claimed = (domain: string) => conflict("EMAIL_DOMAIN_CLAIMED", `Another workspace holds ${domain} for SSO`)

/** The domain of an address, lower-cased. */
export const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase()

/**
 * Workspaces' claims on email domains for SSO. A claim routes sign-in and lets the workspace's
 * identity provider sign addresses of the domain in only once an env_admin approved it, and one
 * workspace at most holds a domain approved (a unique index), so no tenant can take another's
 * users to its own identity provider.
 */
export class SsoDomains extends Effect.Service<SsoDomains>()("SsoDomains", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const audit = yield* Audit

    const ofTenant = (tenantId: string) =>
      sql`SELECT ${sql.unsafe(columns)} FROM sso_domain_claims WHERE tenant_id = ${tenantId} ORDER BY domain`.pipe(claimRows, Effect.orDie)

    /**
     * The workspace's claims become these domains (the caller checked it may configure the
     * workspace, inside its transaction): new ones pending, or approved at once when an env_admin
     * sets them; gone ones dropped. A domain another workspace holds approved is 409.
     */
    const request = (principal: Principal, tenantId: string, domains: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const wanted = [...new Set(domains.map((d) => d.toLowerCase()))]
        const taken = wanted.length === 0 ? [] : yield* sql`SELECT domain FROM sso_domain_claims
          WHERE status = 'approved' AND tenant_id <> ${tenantId} AND domain IN ${sql.in(wanted)}`.pipe(
          decodeRows("sso_domain_claims", Schema.Struct({ domain: Schema.String }))
        ).pipe(Effect.orDie)
        if (taken[0] !== undefined) return yield* claimed(taken[0].domain)
        yield* sql`DELETE FROM sso_domain_claims WHERE tenant_id = ${tenantId} AND NOT (domain = ANY(${wanted}::text[]))`.pipe(Effect.orDie)
        const approve = principal.role === "env_admin"
        for (const domain of wanted) {
          yield* sql`INSERT INTO sso_domain_claims ${
            sql.insert({
              tenant_id: tenantId,
              domain,
              status: approve ? "approved" : "pending",
              requested_by: principal.userId,
              ...(approve ? { decided_by: principal.userId, decided_at: new Date() } : {})
            })
          } ON CONFLICT (tenant_id, domain) DO ${
            approve
              ? sql`UPDATE SET status = 'approved', decided_by = EXCLUDED.decided_by, decided_at = EXCLUDED.decided_at WHERE sso_domain_claims.status <> 'approved'`
              : sql`NOTHING`
          }`.pipe(Effect.catchTag("SqlError", (e) => isUniqueViolation(e) ? Effect.fail(claimed(domain)) : Effect.die(e)))
        }
        return yield* ofTenant(tenantId)
      })

    const list = (principal: Principal, status: typeof SsoDomainStatus.Type | undefined) =>
      Effect.zipRight(
        requireEnvAdmin(principal),
        sql`SELECT ${sql.unsafe(columns)} FROM sso_domain_claims ${status === undefined ? sql`` : sql`WHERE status = ${status}`}
          ORDER BY requested_at DESC, domain`.pipe(claimRows, Effect.orDie, Effect.map((items) => ({ items })))
      )

    const decide = (principal: Principal, tenantId: TenantId, domain: string, status: "approved" | "rejected") =>
      Effect.gen(function*() {
        yield* requireEnvAdmin(principal)
        const [row] = yield* sql`UPDATE sso_domain_claims SET status = ${status}, decided_by = ${principal.userId}, decided_at = now()
          WHERE tenant_id = ${tenantId} AND domain = ${domain.toLowerCase()} RETURNING ${sql.unsafe(columns)}`.pipe(
          claimRows,
          Effect.catchTag("SqlError", (e) => isUniqueViolation(e) ? Effect.fail(claimed(domain)) : Effect.die(e))
        )
        if (row === undefined) return yield* notFound("Domain claim")
        yield* audit.record(principal, {
          tenantId,
          action: `sso.domain_${status}`,
          resourceType: "tenant",
          resourceId: tenantId,
          details: { domain: row.domain }
        })
        return row
      })

    /** The workspace whose enabled SSO holds this address's domain approved. */
    const tenantFor = (email: string) =>
      sql`SELECT c.tenant_id FROM sso_domain_claims c JOIN sso_configs s ON s.tenant_id = c.tenant_id
        WHERE c.domain = ${domainOf(email)} AND c.status = 'approved' AND s.enabled`.pipe(
        decodeRows("sso_domain_claims", Schema.Struct({ tenant_id: TenantId }))
      ).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.tenant_id)),
        Effect.orDie
      )

    /** Whether this workspace holds the address's domain approved. */
    const holds = (tenantId: string, email: string) =>
      sql`SELECT 1 FROM sso_domain_claims WHERE tenant_id = ${tenantId} AND domain = ${domainOf(email)} AND status = 'approved'`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    return traced("SsoDomains", { ofTenant, request, list, decide, tenantFor, holds })
  })
}) {}

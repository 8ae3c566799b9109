import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { CredentialsCipher } from "../../../platform/CredentialsCipher.js"
import { OutboundGuard } from "../../../platform/outbound/OutboundGuard.js"
import { decodeRows, Timestamp } from "../../../platform/Rows.js"
import { traced } from "../../../platform/Traced.js"
import { ProviderDirectory } from "../../../runtime/models/ModelRegistry.js"
import { requireReader, requireRole, RUN_ADMINS } from "../../../schemas/Authorization.js"
import { conflict, notFound, unprocessable } from "../../../schemas/Errors.js"
import type { PageParams } from "../../../schemas/Pagination.js"
import { pageOf, pageOffset } from "../../../schemas/Pagination.js"
import type { Principal } from "../../../schemas/Principal.js"

const Tier = Schema.Literal(1, 2, 3)
type Tier = typeof Tier.Type
const Row = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  name: Schema.String,
  base_url: Schema.String,
  api_key_enc: Schema.NullOr(Schema.String),
  models: Schema.Array(Schema.Struct({ id: Schema.String, cost_tier: Tier, speed_tier: Tier })),
  enabled: Schema.Boolean,
  created_at: Timestamp,
  updated_at: Timestamp
})
type Row = typeof Row.Type

const providerRows = decodeRows("llm_providers", Row)

const view = ({ api_key_enc, tenant_id: _t, ...row }: Row) => ({ ...row, has_api_key: api_key_enc !== null })
const aad = (tenantId: string, id: string) => `llm-provider:${tenantId}:${id}`

/**
 * A tenant's own OpenAI-compatible providers. Their API keys are sealed with AES-256-GCM under
 * CREDENTIALS_KEY, bound to tenant and record, and never returned.
 */
export class LlmProviders extends Effect.Service<LlmProviders>()("LlmProviders", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* CredentialsCipher
    const guard = yield* OutboundGuard

    /** A provider's address is tenant-supplied: it may not be, or resolve to, a private one (422). */
    const reachable = (baseUrl: string | undefined) =>
      baseUrl === undefined
        ? Effect.void
        : guard.checkUrl(baseUrl).pipe(
          Effect.mapError((refused) => unprocessable("OUTBOUND_ADDRESS_REFUSED", refused.message, [{ path: ["base_url"], message: refused.message }]))
        )

    const find = (principal: Principal, id: string) =>
      sql`SELECT * FROM llm_providers WHERE tenant_id = ${principal.tenantId} AND id = ${id}`.pipe(providerRows).pipe(
        Effect.orDie,
        Effect.flatMap((rows) => (rows[0] === undefined ? Effect.fail(notFound("LLM provider")) : Effect.succeed(rows[0]))),
        Effect.tap(() => requireReader(principal))
      )

    const create = (principal: Principal, input: {
      name: string
      base_url: string
      api_key?: string | undefined
      models: ReadonlyArray<{ id: string; cost_tier: Tier; speed_tier: Tier }>
      enabled: boolean
    }) =>
      Effect.gen(function*() {
        yield* requireRole(principal, RUN_ADMINS)
        yield* reachable(input.base_url)
        const id = randomUUID()
        const sealed = input.api_key === undefined ? null : yield* cipher.encrypt(input.api_key, aad(principal.tenantId, id))
        const rows = yield* sql`INSERT INTO llm_providers ${
          sql.insert({
            id,
            tenant_id: principal.tenantId,
            name: input.name,
            base_url: input.base_url,
            api_key_enc: sealed,
            models: JSON.stringify(input.models),
            enabled: input.enabled
          })
        } ON CONFLICT (tenant_id, name) DO NOTHING RETURNING *`.pipe(providerRows).pipe(Effect.orDie)
        if (rows[0] === undefined) return yield* conflict("PROVIDER_NAME_TAKEN", `A provider named '${input.name}' exists`)
        return view(rows[0])
      })

    const list = (principal: Principal, params: PageParams) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const rows = yield* sql`SELECT * FROM llm_providers WHERE tenant_id = ${principal.tenantId} ORDER BY name
          LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(providerRows).pipe(Effect.orDie)
        const [c] = yield* sql`SELECT count(*)::int AS total FROM llm_providers WHERE tenant_id = ${principal.tenantId}`.pipe(
          decodeRows("llm_providers", Schema.Struct({ total: Schema.Number }))
        ).pipe(Effect.orDie)
        return pageOf(params, rows.map(view), c?.total ?? 0)
      })

    const get = (principal: Principal, id: string) => find(principal, id).pipe(Effect.map(view))

    const update = (principal: Principal, id: string, patch: {
      base_url?: string | undefined
      api_key?: string | null | undefined
      models?: ReadonlyArray<{ id: string; cost_tier: Tier; speed_tier: Tier }> | undefined
      enabled?: boolean | undefined
    }) =>
      Effect.gen(function*() {
        yield* find(principal, id)
        yield* requireRole(principal, RUN_ADMINS)
        yield* reachable(patch.base_url)
        const sealed = patch.api_key === undefined || patch.api_key === null
          ? patch.api_key
          : yield* cipher.encrypt(patch.api_key, aad(principal.tenantId, id))
        const [row] = yield* sql`UPDATE llm_providers SET
            base_url = ${patch.base_url ?? sql`base_url`},
            api_key_enc = ${sealed === undefined ? sql`api_key_enc` : sealed},
            models = ${patch.models === undefined ? sql`models` : sql`${JSON.stringify(patch.models)}::jsonb`},
            enabled = ${patch.enabled ?? sql`enabled`},
            updated_at = now()
          WHERE tenant_id = ${principal.tenantId} AND id = ${id} RETURNING *`.pipe(providerRows).pipe(Effect.orDie)
        return view(row)
      })

    const remove = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        yield* find(principal, id)
        yield* requireRole(principal, RUN_ADMINS)
        yield* sql`DELETE FROM llm_providers WHERE tenant_id = ${principal.tenantId} AND id = ${id}`.pipe(Effect.orDie)
      })

    /** Enabled providers with their keys unsealed, for the model registry. */
    const enabled = (tenantId: string) =>
      Effect.gen(function*() {
        const rows = yield* sql`SELECT * FROM llm_providers WHERE tenant_id = ${tenantId} AND enabled ORDER BY name`.pipe(providerRows).pipe(Effect.orDie)
        return yield* Effect.forEach(rows, (row) =>
          Effect.gen(function*() {
            const apiKey = row.api_key_enc === null
              ? Option.none<string>()
              : yield* cipher.decrypt(row.api_key_enc, aad(tenantId, row.id)).pipe(Effect.option)
            return {
              name: row.name,
              baseUrl: row.base_url,
              apiKey: Option.getOrUndefined(apiKey),
              models: row.models.map((m) => ({ id: m.id, cost: m.cost_tier, speed: m.speed_tier }))
            }
          }))
      })

    return traced("LlmProviders", { create, list, get, update, remove, enabled })
  })
}) {}

export const ProviderDirectoryLive = Layer.effect(ProviderDirectory, Effect.map(LlmProviders, (p) => ({ enabled: p.enabled })))

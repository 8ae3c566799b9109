import { Schema } from "effect"
import { TenantId } from "./Ids.js"

export const TenantSettings = Schema.Struct({
  require_totp: Schema.Boolean,
  chat_impersonation: Schema.Boolean,
  ticketing_enabled: Schema.Boolean,
  user_groups_enabled: Schema.Boolean,
  max_runs_in_flight: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 100_000)).annotations({
      message: () => "must be a whole number from 1 to 100000",
      description:
        "Runs of this tenant active at once on a runner process; more wait in pending (a run_queued event) and start in the order they were started in; a raised limit reaches runs already waiting within seconds. Absent: the platform's TENANT_MAX_RUNS_IN_FLIGHT. Only an env_admin sets it."
    })
  ),
  max_run_starts_per_second: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 100_000)).annotations({
      message: () => "must be a whole number from 1 to 100000",
      description:
        "Runs this tenant may start per second through the run endpoints, chat messages, document generation, webhooks and public apps (429 RATE_LIMITED with Retry-After past it): a flood is refused at the door. The visitors of its public apps together get half of it (at least 1). Paced: up to this many at once, then one every 1/n s. Absent: the platform's default (TENANT_MAX_RUN_STARTS_PER_SECOND; no limit unless set). Only an env_admin sets it."
    })
  ),
  run_retention_days: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 36_500)).annotations({
      message: () => "must be a whole number from 1 to 36500",
      description:
        "Days a finished run (with its steps, events, spans and HITL requests) and an integration execution are kept after they ended. Absent: the platform's RUN_RETENTION_DAYS. At most RUN_RETENTION_MAX_DAYS (422 RETENTION_TOO_LONG)."
    })
  ),
  run_detail_retention_days: Schema.optional(
    Schema.NullOr(Schema.Int.pipe(Schema.between(1, 36_500)))
  ).annotations({
    description:
      "Days a finished run's spans and streamed tokens are kept, when shorter than its retention (null: as long as the run). Not above the run retention (422 RETENTION_TOO_LONG)."
  }),
  max_model_calls_in_flight: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 100_000)).annotations({
      message: () => "must be a whole number from 1 to 100000",
      description:
        "Model calls of this tenant's runs in flight at once on a process; more wait their turn. Absent: the platform's TENANT_MAX_MODEL_CALLS_IN_FLIGHT. Only an env_admin sets it."
    })
  )
})
export type TenantSettings = typeof TenantSettings.Type

export const defaultTenantSettings: TenantSettings = {
  require_totp: false,
  chat_impersonation: false,
  ticketing_enabled: false,
  user_groups_enabled: false
}

export const Tenant = Schema.Struct({
  id: TenantId,
  name: Schema.String,
  slug: Schema.String,
  settings: TenantSettings,
  created_at: Schema.Date
})
export type Tenant = typeof Tenant.Type

export const Slug = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, {
    message: () => "slug must be lowercase letters, digits and hyphens (1-63 characters)"
  })
)

export const CreateTenantRequest = Schema.Struct({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  slug: Slug
})

export const UpdateTenantSettingsRequest = Schema.partial(TenantSettings)

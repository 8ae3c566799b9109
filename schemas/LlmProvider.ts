import { Schema } from "effect"
import { Page } from "./Pagination.js"

const Tier = Schema.Literal(1, 2, 3)

export const ProviderModel = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  cost_tier: Schema.optionalWith(Tier, { default: () => 2 as const }),
  speed_tier: Schema.optionalWith(Tier, { default: () => 2 as const })
})

export const LlmProvider = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  base_url: Schema.String,
  has_api_key: Schema.Boolean,
  models: Schema.Array(Schema.Struct({ id: Schema.String, cost_tier: Tier, speed_tier: Tier })),
  enabled: Schema.Boolean,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const Name = Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9_-]{0,62}$/, { message: () => "name: lowercase letters, digits, '-' and '_'" }))
const BaseUrl = Schema.String.pipe(Schema.pattern(/^https?:\/\/\S+$/, { message: () => "base_url must be an http(s) URL" }))

export const CreateLlmProviderRequest = Schema.Struct({
  name: Name,
  base_url: BaseUrl,
  api_key: Schema.optional(Schema.String),
  models: Schema.Array(ProviderModel).pipe(Schema.minItems(1)),
  enabled: Schema.optionalWith(Schema.Boolean, { default: () => true })
})

export const UpdateLlmProviderRequest = Schema.Struct({
  base_url: Schema.optional(BaseUrl),
  api_key: Schema.optional(Schema.NullOr(Schema.String)),
  models: Schema.optional(Schema.Array(ProviderModel).pipe(Schema.minItems(1))),
  enabled: Schema.optional(Schema.Boolean)
})

export const LlmProviderPage = Page(LlmProvider)

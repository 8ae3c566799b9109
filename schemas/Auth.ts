import { Schema } from "effect"
import { ApiKeyId, AuditEventId, GroupId, TenantId, UserId, WorkflowId } from "./Ids.js"
import { Role } from "./Roles.js"

const Email = Schema.String.pipe(
  Schema.trimmed(),
  Schema.pattern(/^[^\s@]+@[^\s@]+$/, { message: () => "must be an email address" }),
  Schema.maxLength(320)
)
export { Email }

export const UserStatus = Schema.Literal("active", "disabled")

export const User = Schema.Struct({
  id: UserId,
  tenant_id: TenantId,
  email: Schema.String,
  name: Schema.String,
  role: Role,
  status: UserStatus
})
export type User = typeof User.Type

export const LoginResponse = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  token_type: Schema.Literal("Bearer"),
  expires_in: Schema.Int,
  user: User
})
export type LoginResponse = typeof LoginResponse.Type

/** Returned instead of tokens when the tenant requires a TOTP second factor. */
export const PartialAuthResponse = Schema.Struct({
  partial_auth_token: Schema.String,
  mfa_required: Schema.Literal("totp"),
  totp_enrolled: Schema.Boolean
})
export type PartialAuthResponse = typeof PartialAuthResponse.Type

export const LoginResult = Schema.Union(LoginResponse, PartialAuthResponse)
export type LoginResult = typeof LoginResult.Type

export const LoginRequest = Schema.Struct({
  email: Email,
  password: Schema.String.pipe(Schema.minLength(1)),
  tenant: Schema.optional(Schema.String)
})

/** Without `refresh_token`, a browser's refresh cookie is used (with the CSRF checks of a cookie request). */
export const RefreshRequest = Schema.Struct({ refresh_token: Schema.optional(Schema.String) })
export const RefreshResponse = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.Literal("Bearer"),
  expires_in: Schema.Int
})

export const BeginRequest = Schema.Struct({ email: Email })
export const BeginResponse = Schema.Struct({
  method: Schema.Literal("sso", "password", "otp", "unknown"),
  continuation_token: Schema.optional(Schema.String),
  continue_url: Schema.optional(Schema.String)
})

export const OtpRequest = Schema.Struct({ email: Email, tenant: Schema.optional(Schema.String) })
export const OtpRequestResponse = Schema.Struct({ status: Schema.Literal("sent") })
export const OtpVerifyRequest = Schema.Struct({
  email: Email,
  code: Schema.String,
  tenant: Schema.optional(Schema.String)
})

export const TotpVerifyRequest = Schema.Struct({ partial_auth_token: Schema.String, code: Schema.String })
export const PartialTokenRequest = Schema.Struct({ partial_auth_token: Schema.String })
export const TotpEnrollment = Schema.Struct({ secret: Schema.String, otpauth_uri: Schema.String })
export const TotpActivateRequest = Schema.Struct({ code: Schema.String })
export const TotpStatus = Schema.Struct({ totp_enabled: Schema.Boolean })

export const MyTenant = Schema.Struct({
  tenant_id: TenantId,
  name: Schema.String,
  slug: Schema.String,
  role: Role,
  status: UserStatus
})
export const MyTenants = Schema.Struct({ items: Schema.Array(MyTenant) })
export const Me = Schema.Struct({
  user: User,
  auth_method: Schema.Literal("jwt", "api_key"),
  totp_enabled: Schema.Boolean
})

export const SwitchTenantRequest = Schema.Struct({ target_tenant_id: TenantId })

// API keys
export const KeyType = Schema.Literal("user", "system")
/** `read` covers GET and HEAD, `write` every other method. */
export const OperationScope = Schema.Array(Schema.Literal("read", "write"))
/** Service prefixes the key may reach, e.g. `workflow` for /api/v1/workflow. */
export const ResourceScope = Schema.Array(
  Schema.Literal(
    "auth",
    "ai-employees",
    "workflow",
    "agent",
    "chat",
    "ingestion",
    "integrations",
    "eval",
    "docgen",
    "hcm-ticketing"
  )
)
export type OperationScope = typeof OperationScope.Type

/** A web origin as browsers send it: scheme, host and port, nothing after. */
export const WebOrigin = Schema.String.pipe(
  Schema.filter((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol) && new URL(s).origin === s, {
    message: () => "an origin is scheme://host[:port] with nothing after it, e.g. https://www.example.com"
  })
)

/**
 * A chat widget key: published in a web page, so it reaches only the widget's routes (the embed
 * config, external/chat, a chat run's stream, feedback) of the AI Employees it names, and from a
 * browser only on the pages of the origins it lists.
 */
export const WidgetScope = Schema.Struct({
  allowed_origins: Schema.NonEmptyArray(WebOrigin).pipe(Schema.maxItems(20)),
  workflow_ids: Schema.NonEmptyArray(WorkflowId).pipe(Schema.maxItems(20))
})
export type WidgetScope = typeof WidgetScope.Type
export type ResourceScope = typeof ResourceScope.Type

export const ApiKey = Schema.Struct({
  id: ApiKeyId,
  name: Schema.String,
  key_prefix: Schema.String,
  key_type: KeyType,
  owner_user_id: UserId,
  operation_scope: Schema.NullOr(OperationScope),
  resource_scope: Schema.NullOr(ResourceScope),
  /** Set on a chat widget key (see WidgetScope). */
  widget: Schema.NullOr(WidgetScope),
  expires_at: Schema.NullOr(Schema.Date),
  revoked: Schema.Boolean,
  revoked_at: Schema.NullOr(Schema.Date),
  last_used_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date
})
export type ApiKey = typeof ApiKey.Type

export const ApiKeyCreated = Schema.Struct({
  ...ApiKey.fields,
  key: Schema.String
})

export const CreateApiKeyRequest = Schema.Struct({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  key_type: Schema.optionalWith(KeyType, { default: () => "user" as const }),
  operation_scope: Schema.optional(Schema.NullOr(OperationScope)),
  resource_scope: Schema.optional(Schema.NullOr(ResourceScope)),
  /** Makes a chat widget key, safe to publish in a web page: only the widget's routes, only from these origins. */
  widget: Schema.optional(Schema.NullOr(WidgetScope)),
  expires_at: Schema.optional(Schema.NullOr(Schema.Date))
})

export const UpdateApiKeyRequest = Schema.Struct({
  name: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))),
  operation_scope: Schema.optional(Schema.NullOr(OperationScope)),
  resource_scope: Schema.optional(Schema.NullOr(ResourceScope))
})

// Users and memberships
export const CreateUserRequest = Schema.Struct({
  email: Email,
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  password: Schema.optional(Schema.String.pipe(Schema.minLength(8), Schema.maxLength(1024))),
  role: Role,
  tenant_id: Schema.optional(TenantId)
})
export const UpdateUserRequest = Schema.Struct({
  role: Schema.optional(Role),
  status: Schema.optional(UserStatus),
  name: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)))
})

// Groups
export const UserGroup = Schema.Struct({
  id: GroupId,
  tenant_id: TenantId,
  name: Schema.String,
  parent_group_id: Schema.NullOr(GroupId),
  member_count: Schema.Int,
  created_at: Schema.Date
})
export type UserGroup = typeof UserGroup.Type
export const CreateGroupRequest = Schema.Struct({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  parent_group_id: Schema.optional(Schema.NullOr(GroupId))
})
export const UpdateGroupRequest = Schema.Struct({
  name: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))),
  parent_group_id: Schema.optional(Schema.NullOr(GroupId))
})
export const GroupMember = Schema.Struct({
  group_id: GroupId,
  user_id: UserId,
  email: Schema.String,
  name: Schema.String,
  is_group_admin: Schema.Boolean,
  created_at: Schema.Date
})
export const AddGroupMemberRequest = Schema.Struct({
  user_id: UserId,
  is_group_admin: Schema.optionalWith(Schema.Boolean, { default: () => false })
})

// SSO
export const SsoDomainStatus = Schema.Literal("pending", "approved", "rejected")

/**
 * A workspace's claim on an email domain for SSO: sign-in of addresses in the domain goes to its
 * identity provider only once an env_admin approved it, and one workspace at most holds a domain.
 */
export const SsoDomainClaim = Schema.Struct({
  tenant_id: TenantId,
  domain: Schema.String,
  status: SsoDomainStatus,
  requested_at: Schema.Date,
  decided_at: Schema.NullOr(Schema.Date)
}).annotations({ identifier: "SsoDomainClaim" })

export const SsoDomainClaims = Schema.Struct({ items: Schema.Array(SsoDomainClaim) })
export const SsoDomainClaimParams = Schema.Struct({ status: Schema.optional(SsoDomainStatus) })

export const SsoConfig = Schema.Struct({
  tenant_id: TenantId,
  issuer: Schema.String,
  client_id: Schema.String,
  has_client_secret: Schema.Boolean,
  email_domains: Schema.Array(Schema.String),
  /** Each of `email_domains` with the state of its claim. */
  email_domain_claims: Schema.Array(SsoDomainClaim),
  scopes: Schema.String,
  auto_provision: Schema.Boolean,
  default_role: Role,
  enabled: Schema.Boolean,
  redirect_uri: Schema.String,
  updated_at: Schema.Date
})
export type SsoConfig = typeof SsoConfig.Type
export const PutSsoConfigRequest = Schema.Struct({
  issuer: Schema.String.pipe(Schema.pattern(/^https?:\/\/.+/, { message: () => "issuer must be an http(s) URL" })),
  client_id: Schema.String.pipe(Schema.minLength(1)),
  client_secret: Schema.optional(Schema.String),
  email_domains: Schema.Array(
    Schema.String.pipe(Schema.pattern(/^(?!-)[A-Za-z0-9-]{1,63}(?:\.(?!-)[A-Za-z0-9-]{1,63})+$/, { message: () => "an email domain such as example.com" }))
  ).pipe(Schema.maxItems(50)),
  scopes: Schema.optionalWith(Schema.String, { default: () => "openid email profile" }),
  auto_provision: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  default_role: Schema.optionalWith(Role, { default: () => "user" as const }),
  enabled: Schema.optionalWith(Schema.Boolean, { default: () => true })
})
export const SsoCallbackParams = Schema.Struct({
  code: Schema.optional(Schema.String),
  state: Schema.optional(Schema.String),
  error: Schema.optional(Schema.String),
  error_description: Schema.optional(Schema.String),
  iss: Schema.optional(Schema.String)
})

// Audit
export const AuditEvent = Schema.Struct({
  id: AuditEventId,
  tenant_id: TenantId,
  actor_user_id: Schema.NullOr(UserId),
  actor_api_key_id: Schema.NullOr(ApiKeyId),
  action: Schema.String,
  resource_type: Schema.String,
  resource_id: Schema.NullOr(Schema.String),
  details: Schema.Unknown,
  request_id: Schema.NullOr(Schema.String),
  created_at: Schema.Date
})
export type AuditEvent = typeof AuditEvent.Type

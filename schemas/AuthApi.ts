import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as A from "./Auth.js"
import { BadRequest, Conflict, Forbidden, NotFound, TooManyRequests, Unauthorized, Unprocessable } from "./Errors.js"
import { ApiKeyId, GroupId, TenantId, UserId } from "./Ids.js"
import { Page, PageParams } from "./Pagination.js"
import * as Security from "./Security.js"
import { CreateTenantRequest, Tenant, UpdateTenantSettingsRequest } from "./Tenant.js"

/** Sign-in routes: public. */
export class AuthPublicApi extends HttpApiGroup.make("authPublic")
  .add(
    HttpApiEndpoint.post("login", "/login")
      .setPayload(A.LoginRequest)
      .addSuccess(A.LoginResult)
      .addError(Unauthorized)
      .addError(TooManyRequests)
  )
  .add(
    HttpApiEndpoint.post("refresh", "/refresh")
      .setPayload(A.RefreshRequest)
      .addSuccess(A.RefreshResponse)
      .addError(Unauthorized)
      .addError(Forbidden)
  )
  .add(
    HttpApiEndpoint.post("logout", "/logout")
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Description, "Clears the browser session cookies (access_token, refresh_token, csrf_token)")
  )
  .add(HttpApiEndpoint.post("begin", "/auth/begin").setPayload(A.BeginRequest).addSuccess(A.BeginResponse))
  .add(
    HttpApiEndpoint.get("ssoContinue", "/auth/sso/continue")
      .setUrlParams(Schema.Struct({ token: Schema.String }))
      .addSuccess(HttpApiSchema.Empty(302))
      .addError(Unauthorized)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Redirects (302) into the tenant's identity provider")
  )
  .add(
    HttpApiEndpoint.get("ssoCallback", "/auth/sso/callback")
      .setUrlParams(A.SsoCallbackParams)
      .addSuccess(A.LoginResult)
      .addError(Unauthorized)
      .addError(Forbidden)
  )
  .add(
    HttpApiEndpoint.post("otpRequest", "/auth/otp/request")
      .setPayload(A.OtpRequest)
      .addSuccess(A.OtpRequestResponse, { status: 202 })
      .addError(TooManyRequests)
  )
  .add(
    HttpApiEndpoint.post("otpVerify", "/auth/otp/verify")
      .setPayload(A.OtpVerifyRequest)
      .addSuccess(A.LoginResult)
      .addError(Unauthorized)
      .addError(TooManyRequests)
  )
  .add(
    HttpApiEndpoint.post("totpEnrollPartial", "/auth/totp/enroll")
      .setPayload(A.PartialTokenRequest)
      .addSuccess(A.TotpEnrollment)
      .addError(Unauthorized)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.post("totpVerify", "/auth/totp/verify")
      .setPayload(A.TotpVerifyRequest)
      .addSuccess(A.LoginResponse)
      .addError(Unauthorized)
      .addError(TooManyRequests)
  )
  .prefix("/api/v1/auth")
{}

/** The caller's own account. */
export class AuthMeApi extends HttpApiGroup.make("authMe")
  .add(HttpApiEndpoint.get("me", "/users/me").addSuccess(A.Me))
  .add(HttpApiEndpoint.get("myTenants", "/users/me/tenants").addSuccess(A.MyTenants))
  .add(
    HttpApiEndpoint.post("switchTenant", "/switch-tenant")
      .setPayload(A.SwitchTenantRequest)
      .addSuccess(A.LoginResult)
      .addError(NotFound)
      .addError(Forbidden)
  )
  .add(
    HttpApiEndpoint.post("totpEnroll", "/users/me/totp/enroll").addSuccess(A.TotpEnrollment).addError(Forbidden).addError(
      Conflict
    )
  )
  .add(
    HttpApiEndpoint.post("totpActivate", "/users/me/totp/activate")
      .setPayload(A.TotpActivateRequest)
      .addSuccess(A.TotpStatus)
      .addError(BadRequest)
      .addError(Forbidden)
  )
  .middleware(Security.Authentication)
  .prefix("/api/v1/auth")
{}

export class ApiKeysApi extends HttpApiGroup.make("apiKeys")
  .add(
    HttpApiEndpoint.post("create", "/api-keys")
      .setPayload(A.CreateApiKeyRequest)
      .addSuccess(A.ApiKeyCreated, { status: 201 })
      .addError(Forbidden)
      .addError(BadRequest)
  )
  .add(HttpApiEndpoint.get("list", "/api-keys").setUrlParams(PageParams).addSuccess(Page(A.ApiKey)))
  .add(
    HttpApiEndpoint.patch("update")`/api-keys/${HttpApiSchema.param("id", ApiKeyId)}`
      .setPayload(A.UpdateApiKeyRequest)
      .addSuccess(A.ApiKey)
      .addError(NotFound)
      .addError(Forbidden)
  )
  .add(
    HttpApiEndpoint.del("revoke")`/api-keys/${HttpApiSchema.param("id", ApiKeyId)}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Forbidden)
  )
  .middleware(Security.Authentication)
  .prefix("/api/v1/auth")
{}

export class TenantsApi extends HttpApiGroup.make("tenants")
  .add(
    HttpApiEndpoint.post("create", "/tenants")
      .setPayload(CreateTenantRequest)
      .addSuccess(Tenant, { status: 201 })
      .addError(Forbidden)
      .addError(Conflict)
  )
  .add(HttpApiEndpoint.get("list", "/tenants").setUrlParams(PageParams).addSuccess(Page(Tenant)).addError(Forbidden))
  .add(
    HttpApiEndpoint.get("getSettings")`/tenants/${HttpApiSchema.param("id", TenantId)}/settings`
      .addSuccess(Tenant)
      .addError(NotFound)
      .addError(Forbidden)
      .annotate(OpenApi.Description, "The tenant with its settings, for its admins (an env_admin: every tenant; anyone else: 404 for another tenant)")
  )
  .add(
    HttpApiEndpoint.patch("updateSettings")`/tenants/${HttpApiSchema.param("id", TenantId)}/settings`
      .setPayload(UpdateTenantSettingsRequest)
      .addSuccess(Tenant)
      .addError(NotFound)
      .addError(Forbidden)
      .addError(Unprocessable)
  )
  .add(
    HttpApiEndpoint.get("getSso")`/tenants/${HttpApiSchema.param("id", TenantId)}/sso`
      .addSuccess(A.SsoConfig)
      .addError(NotFound)
      .addError(Forbidden)
  )
  .add(
    HttpApiEndpoint.put("putSso")`/tenants/${HttpApiSchema.param("id", TenantId)}/sso`
      .setPayload(A.PutSsoConfigRequest)
      .addSuccess(A.SsoConfig)
      .addError(NotFound)
      .addError(Forbidden)
      .addError(BadRequest)
      .addError(Conflict)
      .addError(Unprocessable)
      .annotate(
        OpenApi.Description,
        "The issuer is reached through the outbound guard (422 OUTBOUND_ADDRESS_REFUSED for private addresses). Each of email_domains is a claim: " +
          "pending until an env_admin approves it (approved at once when an env_admin sets it), 409 EMAIL_DOMAIN_CLAIMED when another workspace holds it."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteSso")`/tenants/${HttpApiSchema.param("id", TenantId)}/sso`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Forbidden)
  )
  .add(
    HttpApiEndpoint.get("ssoDomainClaims", "/sso/domain-claims")
      .setUrlParams(A.SsoDomainClaimParams)
      .addSuccess(A.SsoDomainClaims)
      .addError(Forbidden)
      .annotate(OpenApi.Description, "env_admin: every workspace's claims on email domains for SSO, pending ones to approve or reject.")
  )
  .add(
    HttpApiEndpoint.post("approveSsoDomain")`/tenants/${HttpApiSchema.param("id", TenantId)}/sso/domains/${
      HttpApiSchema.param("domain", Schema.String)
    }/approve`
      .addSuccess(A.SsoDomainClaim)
      .addError(NotFound)
      .addError(Forbidden)
      .addError(Conflict)
      .annotate(
        OpenApi.Description,
        "env_admin: the workspace's SSO takes the sign-in of this domain's addresses (409 EMAIL_DOMAIN_CLAIMED when another workspace holds it)."
      )
  )
  .add(
    HttpApiEndpoint.post("rejectSsoDomain")`/tenants/${HttpApiSchema.param("id", TenantId)}/sso/domains/${HttpApiSchema.param("domain", Schema.String)}/reject`
      .addSuccess(A.SsoDomainClaim)
      .addError(NotFound)
      .addError(Forbidden)
      .addError(Conflict)
  )
  .middleware(Security.Authentication)
  .prefix("/api/v1/auth")
{}

export class UsersApi extends HttpApiGroup.make("users")
  .add(
    HttpApiEndpoint.post("create", "/users")
      .setPayload(A.CreateUserRequest)
      .addSuccess(A.User, { status: 201 })
      .addError(Forbidden)
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(HttpApiEndpoint.get("list", "/users").setUrlParams(PageParams).addSuccess(Page(A.User)).addError(Forbidden))
  .add(
    HttpApiEndpoint.patch("update")`/users/${HttpApiSchema.param("id", UserId)}`
      .setPayload(A.UpdateUserRequest)
      .addSuccess(A.User)
      .addError(NotFound)
      .addError(Forbidden)
      .addError(Conflict)
      .annotate(
        OpenApi.Description,
        "Changes a member's role or status. A workspace keeps at least one active member at its highest admin role: demoting or disabling its last holder is 409 LAST_ADMIN."
      )
  )
  .add(
    HttpApiEndpoint.del("remove")`/users/${HttpApiSchema.param("id", UserId)}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Forbidden)
      .addError(Conflict)
      .annotate(
        OpenApi.Description,
        "Removes the membership and revokes the member's keys in the workspace. The last active member at the workspace's highest admin role cannot be removed (409 LAST_ADMIN)."
      )
  )
  .middleware(Security.Authentication)
  .prefix("/api/v1/auth")
{}

const groupId = HttpApiSchema.param("id", GroupId)

export class GroupsApi extends HttpApiGroup.make("groups")
  .add(
    HttpApiEndpoint.post("create", "/groups")
      .setPayload(A.CreateGroupRequest)
      .addSuccess(A.UserGroup, { status: 201 })
      .addError(Forbidden)
      .addError(NotFound)
      .addError(Conflict)
      .addError(Unprocessable)
  )
  .add(HttpApiEndpoint.get("list", "/groups").setUrlParams(PageParams).addSuccess(Page(A.UserGroup)).addError(NotFound))
  .add(HttpApiEndpoint.get("get")`/groups/${groupId}`.addSuccess(A.UserGroup).addError(NotFound))
  .add(
    HttpApiEndpoint.patch("update")`/groups/${groupId}`
      .setPayload(A.UpdateGroupRequest)
      .addSuccess(A.UserGroup)
      .addError(NotFound)
      .addError(Forbidden)
      .addError(Conflict)
      .addError(Unprocessable)
  )
  .add(
    HttpApiEndpoint.del("remove")`/groups/${groupId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Forbidden)
  )
  .add(
    HttpApiEndpoint.get("members")`/groups/${groupId}/members`
      .setUrlParams(PageParams)
      .addSuccess(Page(A.GroupMember))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("addMember")`/groups/${groupId}/members`
      .setPayload(A.AddGroupMemberRequest)
      .addSuccess(A.GroupMember, { status: 201 })
      .addError(NotFound)
      .addError(Forbidden)
  )
  .add(
    HttpApiEndpoint.del("removeMember")`/groups/${groupId}/members/${HttpApiSchema.param("user_id", UserId)}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Forbidden)
  )
  .middleware(Security.Authentication)
  .prefix("/api/v1/auth")
{}

export class AuditApi extends HttpApiGroup.make("audit")
  .add(
    HttpApiEndpoint.get("list", "/audit-events")
      .setUrlParams(PageParams)
      .addSuccess(Page(A.AuditEvent))
      .addError(Forbidden)
  )
  .middleware(Security.Authentication)
  .prefix("/api/v1/auth")
{}

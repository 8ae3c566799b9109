import { Layer } from "effect"
import { Audit } from "../../platform/Audit.js"
import { AppConfig } from "../../platform/Config.js"
import { isolated } from "../../platform/Isolated.js"
import { Authentication } from "../../schemas/Security.js"
import { ApiKeys } from "./ApiKeys.js"
import { ApiKeysRepo } from "./ApiKeysRepo.js"
import { Begin } from "./Begin.js"
import { Credentials } from "./Credentials.js"
import { Directory } from "./Directory.js"
import { Groups } from "./Groups.js"
import { GroupsRepo } from "./GroupsRepo.js"
import { ApiKeysHttp, AuthMeHttp } from "./http/AccountHttp.js"
import { AuditHttp, GroupsHttp, TenantsHttp, UsersHttp } from "./http/AdminHttp.js"
import { AuthPublicHttp } from "./http/PublicHttp.js"
import { Passwords } from "./Passwords.js"
import { PeopleLive } from "./PeopleLive.js"
import { SecondFactor } from "./SecondFactor.js"
import { Sessions } from "./Sessions.js"
import { SignInThrottle } from "./SignInThrottle.js"
import { Sso } from "./Sso.js"
import { SsoClients } from "./SsoClients.js"
import { SsoConfigs } from "./SsoConfigs.js"
import { SsoDomains } from "./SsoDomains.js"
import { TenantsRepo } from "./TenantsRepo.js"
import { Tokens } from "./Tokens.js"
import { UsersRepo } from "./UsersRepo.js"

/** The auth service: tenants, users, groups, keys, sessions, second factors, SSO, and its port `People`. */
export const AuthLive = Layer.mergeAll(SecondFactor.Default, Directory.Default, ApiKeys.Default, Groups.Default, Begin.Default, PeopleLive).pipe(
  Layer.provideMerge(Credentials.Default),
  Layer.provideMerge(Sso.Default),
  Layer.provideMerge(SsoConfigs.Default),
  Layer.provideMerge(Layer.mergeAll(SsoDomains.Default, SsoClients.Default)),
  Layer.provideMerge(Sessions.Default),
  Layer.provideMerge(
    Layer.mergeAll(Passwords.Default, Tokens.Default, TenantsRepo.Default, UsersRepo.Default, ApiKeysRepo.Default, GroupsRepo.Default, SignInThrottle.Default)
  )
)

export const AuthHttpLive = isolated(
  Layer.mergeAll(AuthPublicHttp, AuthMeHttp, ApiKeysHttp, TenantsHttp, UsersHttp, GroupsHttp, AuditHttp),
  Authentication,
  AppConfig,
  Audit,
  ApiKeys,
  Sessions,
  Sso,
  SsoConfigs,
  SsoDomains,
  Begin,
  Directory,
  Groups,
  SecondFactor
)

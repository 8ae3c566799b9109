import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Option, Redacted } from "effect"
import { TracingLive } from "../../otel/Tracing.js"
import { EventBus } from "../../platform/EventBus.js"
import { PlatformApi } from "../../schemas/Api.js"
import { ApiKeys } from "../auth/ApiKeys.js"
import { ApiKeysRepo } from "../auth/ApiKeysRepo.js"
import { Begin } from "../auth/Begin.js"
import { bootstrapAdmin } from "../auth/Bootstrap.js"
import { Credentials } from "../auth/Credentials.js"
import { Directory } from "../auth/Directory.js"
import { Groups } from "../auth/Groups.js"
import { GroupsRepo } from "../auth/GroupsRepo.js"
import { ApiKeysHttp, AuthMeHttp } from "../auth/http/AccountHttp.js"
import { AuditHttp, GroupsHttp, TenantsHttp, UsersHttp } from "../auth/http/AdminHttp.js"
import { AuthPublicHttp } from "../auth/http/PublicHttp.js"
import { SecondFactor } from "../auth/SecondFactor.js"
import { Sessions } from "../auth/Sessions.js"
import { SignInThrottle } from "../auth/SignInThrottle.js"
import { Sso } from "../auth/Sso.js"
import { TenantsRepo } from "../auth/TenantsRepo.js"
import { Tokens } from "../auth/Tokens.js"
import { UsersRepo } from "../auth/UsersRepo.js"
import { Audit } from "../../platform/Audit.js"
import { AppConfig } from "../../platform/Config.js"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { DatabaseLive } from "../../platform/Database.js"
import { Idempotency } from "../../platform/Idempotency.js"
import { LocalSecrets } from "../../platform/LocalSecrets.js"
import { Mailer } from "../../platform/Mailer.js"
import { MigrationsLive } from "./Migrations.js"
import { RateLimiter } from "../../platform/RateLimiter.js"
import { AuthClient } from "./AuthClient.js"
import { AuthenticationLive } from "./Authentication.js"
import { ApiRouterLive, serveGateway } from "./Server.js"
import { InternalRpcLive } from "./InternalRpc.js"
import { ListenerLive } from "./Listener.js"
import { startBanner } from "./Banner.js"
import { RedisConnection } from "../../platform/Redis.js"
import { OutboundGuard } from "../../platform/outbound/OutboundGuard.js"
import { SystemHttp } from "./SystemHttp.js"
import { Agents } from "../agent/Agents.js"
import { IngestionHttp } from "../ingestion/http/IngestionHttp.js"
import { Knowledge, KnowledgeSearchLive, KnowledgeSnapshotsLive } from "../ingestion/Knowledge.js"
import { KnowledgeRepo } from "../ingestion/KnowledgeRepo.js"
import { EmbeddingsRepo } from "../ingestion/EmbeddingsRepo.js"
import { SemanticIndex } from "../ingestion/SemanticIndex.js"
import { Embeddings } from "../../runtime/models/Embeddings.js"
import { AgentsRepo } from "../agent/AgentsRepo.js"
import { GeneratedFilesLive } from "../agent/FilesRepo.js"
import { BuiltinToolsLive } from "../../runtime/tools/BuiltinTools.js"
import { ToolRegistry } from "../../runtime/tools/Tools.js"
import { AgentsHttp } from "../agent/http/AgentsHttp.js"
import { DagChecks } from "../workflow/DagChecks.js"
import { ModelRegistry } from "../../runtime/models/ModelRegistry.js"
import { LlmProvidersHttp } from "../workflow/http/LlmProvidersHttp.js"
import { LlmProviders, ProviderDirectoryLive } from "../workflow/LlmProviders.js"
import { kernelLive } from "../../runtime/run/Kernel.js"
import { RunnableWorkflowsLive } from "../workflow/RunnableWorkflowsLive.js"
import { Chat } from "../chat/Chat.js"
import { ChatFeedback } from "../chat/ChatFeedback.js"
import { ChatRunHooksLive, ChatTurns } from "../chat/ChatTurns.js"
import { ExternalChat } from "../chat/ExternalChat.js"
import { ChatHttp } from "../chat/http/ChatHttp.js"
import { MessagesRepo } from "../chat/MessagesRepo.js"
import { PiiVault } from "../chat/PiiVault.js"
import { SessionsRepo } from "../chat/SessionsRepo.js"
import { Titles } from "../chat/Titles.js"
import { TurnIntake } from "../chat/TurnIntake.js"
import { Hitl } from "../workflow/Hitl.js"
import { HitlHttp, RunsHttp } from "../workflow/http/RunsHttp.js"
import { Runs } from "../workflow/Runs.js"
import { RunsRepo } from "../workflow/RunsRepo.js"
import { RunStream } from "../workflow/RunStream.js"
import { Traces } from "../workflow/Traces.js"
import { AiEmployeesHttp } from "../workflow/http/AiEmployeesHttp.js"
import { VoiceHttp } from "../workflow/http/VoiceHttp.js"
import { WorkflowsHttp } from "../workflow/http/WorkflowsHttp.js"
import { Publishing } from "../workflow/Publishing.js"
import { RegistriesLive } from "../ports/PublishChecks.js"
import { PeopleLive } from "../auth/PeopleLive.js"
import { AiEmployeesLive, RunAccessLive } from "../workflow/PortsLive.js"
import { VersionsRepo } from "../workflow/VersionsRepo.js"
import { VoiceTrees } from "../workflow/VoiceTrees.js"
import { Workflows } from "../workflow/Workflows.js"
import { WorkflowsRepo } from "../workflow/WorkflowsRepo.js"

/** Connections and process-wide infrastructure. */
/** The database, migrated before any service touches it. */
const MigratedDatabaseLive = MigrationsLive.pipe(Layer.provideMerge(DatabaseLive))

const InfraLive = Layer.mergeAll(MigratedDatabaseLive, RateLimiter.layer, EventBus.layer, LocalSecrets.layer, OutboundGuard.layer).pipe(
  Layer.provide(RedisConnection.layer)
)

const SharedLive = Layer.mergeAll(
  Audit.Default,
  Mailer.Default,
  CredentialsCipher.Default,
  Idempotency.Default,
  Tokens.Default,
  TenantsRepo.Default,
  UsersRepo.Default,
  ApiKeysRepo.Default,
  GroupsRepo.Default,
  SignInThrottle.Default
)

const AgentServicesLive = Agents.Default.pipe(Layer.provide(AgentsRepo.Default))

/** Models: the platform provider and the tenants' own providers behind one registry. */
const ModelsLive = ModelRegistry.layer.pipe(
  Layer.provideMerge(ProviderDirectoryLive),
  Layer.provideMerge(LlmProviders.Default)
)

/** Knowledge bases, and what other services read of them: search_respond's retrieval and publish snapshots. */
const KnowledgeLive = KnowledgeSearchLive.pipe(
  Layer.provideMerge(Knowledge.Default),
  Layer.provideMerge(KnowledgeSnapshotsLive),
  Layer.provideMerge(SemanticIndex.Default),
  Layer.provideMerge(Layer.mergeAll(KnowledgeRepo.Default, EmbeddingsRepo.Default, Embeddings.layer)),
  Layer.provide(NodeHttpClient.layerUndici)
)

/** Chat follows its runs to their end from inside the kernel: answers, queued turns, titles. */
const ChatKernelHooksLive = ChatRunHooksLive.pipe(
  Layer.provideMerge(ChatTurns.layer),
  Layer.provideMerge(Titles.layer),
  Layer.provideMerge(Layer.mergeAll(SessionsRepo.Default, MessagesRepo.Default))
)

const RunsLive = Layer.mergeAll(RunStream.Default, Hitl.Default, Traces.Default, AgentServicesLive).pipe(
  Layer.provideMerge(Runs.Default),
  Layer.provideMerge(RunsRepo.Default),
  Layer.provideMerge(kernelLive(ChatKernelHooksLive)),
  Layer.provideMerge(RunnableWorkflowsLive)
)

/** The tools agents call (built-ins, later integrations and MCP) and the files they produce. */
const ToolsLive = BuiltinToolsLive.pipe(Layer.provideMerge(ToolRegistry.layer), Layer.provide(KnowledgeLive))

const WorkflowLive = Layer.mergeAll(Workflows.Default, Publishing.Default, VoiceTrees.Default, RunAccessLive.pipe(Layer.provideMerge(RunsLive))).pipe(
  Layer.provideMerge(AiEmployeesLive),
  Layer.provideMerge(DagChecks.Default),
  Layer.provideMerge(RegistriesLive),
  Layer.provideMerge(Layer.mergeAll(WorkflowsRepo.Default, VersionsRepo.Default, KnowledgeLive, ModelsLive, ToolsLive, GeneratedFilesLive))
)

const AuthLive = Layer.mergeAll(
  Credentials.Default,
  SecondFactor.Default,
  Directory.Default,
  ApiKeys.Default,
  Groups.Default,
  Begin.Default,
  PeopleLive
).pipe(Layer.provideMerge(Credentials.Default), Layer.provideMerge(Sso.Default), Layer.provideMerge(Sessions.Default))

const ChatLive = Layer.mergeAll(ChatFeedback.Default, ExternalChat.Default).pipe(
  Layer.provideMerge(Chat.Default),
  Layer.provideMerge(TurnIntake.Default),
  Layer.provideMerge(PiiVault.Default)
)

/** Every service, over the database and the shared infrastructure. */
export const ServicesLive = ChatLive.pipe(
  Layer.provideMerge(WorkflowLive),
  Layer.provideMerge(AuthLive),
  Layer.provideMerge(SharedLive),
  Layer.provideMerge(InfraLive)
)

/** In one program the gateway asks auth in-process; with `AUTH_RPC_URL` it asks over HTTP. */
const AuthClientLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.authRpcUrl, {
      onNone: () => AuthClient.inProcess,
      onSome: (url) => AuthClient.http(url, Option.getOrUndefined(Option.map(config.internalRpcToken, Redacted.value)))
    }))
)

const HandlersLive = Layer.mergeAll(
  SystemHttp,
  AuthPublicHttp,
  AuthMeHttp,
  ApiKeysHttp,
  TenantsHttp,
  UsersHttp,
  GroupsHttp,
  AuditHttp,
  WorkflowsHttp,
  AiEmployeesHttp,
  VoiceHttp,
  RunsHttp,
  HitlHttp,
  AgentsHttp,
  IngestionHttp,
  LlmProvidersHttp,
  ChatHttp
)

const ApiLive = HttpApiBuilder.api(PlatformApi).pipe(
  Layer.provide(HandlersLive),
  Layer.provide(AuthenticationLive),
  Layer.provide(AuthClientLive)
)

/** The first admin exists before the platform answers its first request (503 until then). */
const GatewayLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const admin = yield* bootstrapAdmin
    yield* serveGateway
    yield* startBanner(admin)
  })
).pipe(
  Layer.provide(ApiRouterLive),
  Layer.provide(ApiLive),
  Layer.merge(InternalRpcLive)
)

/**
 * The whole platform in one process (the default `ROLE=all`). The listener comes up first (503
 * until ready); tracing right after the database (the run span store writes there) and before
 * every service, so their spans are traced.
 */
export const PlatformLive = GatewayLive.pipe(
  // The services stay in the output: tests and benchmarks reach them (the run module) in-process.
  Layer.provideMerge(ServicesLive),
  Layer.provide(TracingLive),
  Layer.provide(MigratedDatabaseLive),
  Layer.provide(ListenerLive),
  Layer.provide(AppConfig.layer)
)

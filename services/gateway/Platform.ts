import { HttpApiBuilder } from "@effect/platform"
import { Effect, FiberRef, Layer, Option, Redacted } from "effect"
import { MetricsEndpoint } from "../../otel/MetricsLive.js"
import { TracingLive } from "../../otel/Tracing.js"
import { AppConfig } from "../../platform/Config.js"
import { DatabaseLive } from "../../platform/Database.js"
import { EventBus } from "../../platform/EventBus.js"
import { isolated } from "../../platform/Isolated.js"
import { LocalSecrets } from "../../platform/LocalSecrets.js"
import { OutboundGuard } from "../../platform/outbound/OutboundGuard.js"
import { PlatformServicesLive } from "../../platform/PlatformServices.js"
import { PgPool } from "../../platform/PreparedSql.js"
import { RateLimiter } from "../../platform/RateLimiter.js"
import { RedisConnection } from "../../platform/Redis.js"
import { kernelLive } from "../../runtime/run/Kernel.js"
import { RunPlacement } from "../../runtime/run/Placement.js"
import { PlatformApi } from "../../schemas/Api.js"
import { AgentFilesLive, AgentHttpLive, AgentLive } from "../agent/AgentLive.js"
import { AuthHttpLive, AuthLive } from "../auth/AuthLive.js"
import { bootstrapAdmin } from "../auth/Bootstrap.js"
import { ChatHttpLive, ChatLive, ChatRunEndLive } from "../chat/ChatLive.js"
import { DocgenHttpLive, DocgenLive } from "../docgen/DocgenLive.js"
import { EvalHttpLive, EvalLive } from "../eval/EvalLive.js"
import { IngestionHttpLive, IngestionLive } from "../ingestion/IngestionLive.js"
import { IntegrationsHttpLive, IntegrationsLive } from "../integrations/IntegrationsLive.js"
import { TicketingHttpLive, TicketingLive } from "../ticketing/TicketingLive.js"
import { WorkflowCoreLive, WorkflowHttpLive, WorkflowLive } from "../workflow/WorkflowLive.js"
import { AuthClient } from "./AuthClient.js"
import { AuthenticationLive } from "./Authentication.js"
import { startBanner } from "./Banner.js"
import { OpenApiDocumentLive } from "./BuiltOpenApi.js"
import { InternalRpcLive } from "./InternalRpc.js"
import { ListenerLive } from "./Listener.js"
import { MigrationsLive } from "./Migrations.js"
import { ApiRouterLive, serveGateway } from "./Server.js"
import { SystemHttp } from "./SystemHttp.js"

/** The database, migrated before any service touches it. */
const MigratedDatabaseLive = MigrationsLive.pipe(Layer.provideMerge(DatabaseLive))

const InfraLive = Layer.mergeAll(MigratedDatabaseLive, RateLimiter.layer, EventBus.layer, LocalSecrets.layer, OutboundGuard.layer).pipe(
  Layer.provide(RedisConnection.layer)
)

/**
 * Every service, over the database and the shared infrastructure. Bottom up: the platform, auth
 * (and its People port), knowledge and generated files, what the kernel needs of workflow, the run
 * kernel with chat's end hooks, the workflow service over the kernel, then chat and agents.
 */
export const ServicesLive = Layer.mergeAll(ChatLive, AgentLive, EvalLive, DocgenLive).pipe(
  Layer.provideMerge(WorkflowLive),
  Layer.provideMerge(kernelLive(ChatRunEndLive)),
  Layer.provideMerge(TicketingLive),
  Layer.provideMerge(IntegrationsLive),
  Layer.provideMerge(WorkflowCoreLive),
  Layer.provideMerge(Layer.mergeAll(IngestionLive, AgentFilesLive)),
  Layer.provideMerge(AuthLive),
  Layer.provideMerge(PlatformServicesLive),
  Layer.provideMerge(MetricsEndpoint.Default),
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

// Each group's handlers run in the context the group was built in (merged into every request's):
// built seeing only what they use, that merge is small.
const SystemHttpLive = isolated(SystemHttp, PgPool, RunPlacement, AppConfig)

const HandlersLive = Layer.mergeAll(
  SystemHttpLive,
  AuthHttpLive,
  WorkflowHttpLive,
  AgentHttpLive,
  IngestionHttpLive,
  ChatHttpLive,
  IntegrationsHttpLive,
  EvalHttpLive,
  DocgenHttpLive,
  TicketingHttpLive
)

const ApiLive = HttpApiBuilder.api(PlatformApi).pipe(
  Layer.provide(HandlersLive),
  Layer.provide(AuthenticationLive),
  Layer.provide(AuthClientLive)
)

/** The first admin exists before the platform answers its first request (503 until then). */
const GatewayLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const banner = yield* startBanner(yield* bootstrapAdmin)
    yield* serveGateway
    yield* banner
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
  Layer.provide(OpenApiDocumentLive),
  Layer.provide(AppConfig.layer),
  // Built untraced: background loops (pollers, sweeps, leases) make no traces while idle. Requests
  // are traced when spans are exported (serveGateway), runs always, and loops where they do work.
  Layer.locally(FiberRef.currentTracerEnabled, false)
)

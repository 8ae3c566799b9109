import { Layer } from "effect"
import { Audit } from "../../platform/Audit.js"
import { isolated } from "../../platform/Isolated.js"
import { ModelRegistry } from "../../runtime/models/ModelRegistry.js"
import { BuiltinToolsLive } from "../../runtime/tools/BuiltinTools.js"
import { ToolRegistry } from "../../runtime/tools/Tools.js"
import { Authentication } from "../../schemas/Security.js"
import { RegistriesLive } from "../ports/PublishChecks.js"
import { DocumentTriggerDispatchLive } from "./document-triggers/DocumentTriggerDispatch.js"
import { DocumentTriggers } from "./document-triggers/DocumentTriggers.js"
import { DocumentTriggersHttp } from "./document-triggers/DocumentTriggersHttp.js"
import { Hitl } from "./Hitl.js"
import { AiEmployeesHttp } from "./http/AiEmployeesHttp.js"
import { PublicAppHttp } from "./http/PublicAppHttp.js"
import { HitlHttp, RunsHttp } from "./http/RunsHttp.js"
import { WorkflowsHttp } from "./http/WorkflowsHttp.js"
import { InboundEmail } from "./inbound-email/InboundEmail.js"
import { InboundEmailHttp } from "./inbound-email/InboundEmailHttp.js"
import { SmtpListenerLive } from "./inbound-email/SmtpListener.js"
import { LlmProviders, ProviderDirectoryLive } from "./llm-providers/LlmProviders.js"
import { LlmProvidersHttp } from "./llm-providers/LlmProvidersHttp.js"
import { Nudges } from "./nudges/Nudges.js"
import { NudgesHttp } from "./nudges/NudgesHttp.js"
import { NudgeCardsLive } from "./nudges/NudgeStore.js"
import { AiEmployeesLive, McpBindingsLive, RunAccessLive } from "./PortsLive.js"
import { PublicApp } from "./PublicApp.js"
import { Publishing } from "./Publishing.js"
import { RetentionHolds } from "./retention/RetentionHolds.js"
import { RetentionHttp } from "./retention/RetentionHttp.js"
import { RetentionSweepLive } from "./retention/RetentionSweep.js"
import { RunFeeds } from "./RunFeeds.js"
import { RunnableWorkflowsLive } from "./RunnableWorkflowsLive.js"
import { Runs } from "./Runs.js"
import { RunsRepo } from "./RunsRepo.js"
import { RunStartRate } from "./RunStartRate.js"
import { RunStream } from "./RunStream.js"
import { RunTotals } from "./RunTotals.js"
import { ScheduleFiringLive } from "./schedules/ScheduleFiring.js"
import { Schedules } from "./schedules/Schedules.js"
import { SchedulesHttp } from "./schedules/SchedulesHttp.js"
import { ManagedSchedulesLive, ScheduleStore } from "./schedules/ScheduleStore.js"
import { Traces } from "./traces/Traces.js"
import { VersionsRepo } from "./VersionsRepo.js"
import { VoiceHttp } from "./voice-trees/VoiceHttp.js"
import { VoiceTrees } from "./voice-trees/VoiceTrees.js"
import { Webhooks } from "./webhooks/Webhooks.js"
import { WebhookDeliveryHttp, WebhooksHttp } from "./webhooks/WebhooksHttp.js"
import { Workflows } from "./Workflows.js"
import { WorkflowsRepo } from "./WorkflowsRepo.js"

/** Models: the platform provider and the tenants' own providers behind one registry. */
const ModelsLive = ModelRegistry.layer.pipe(
  Layer.provideMerge(ProviderDirectoryLive),
  Layer.provideMerge(LlmProviders.Default)
)

/** The tools agents call (built-ins, later integrations and MCP). */
const ToolsLive = BuiltinToolsLive.pipe(Layer.provideMerge(ToolRegistry.layer))

/**
 * What the run kernel needs of the workflow service, built below it: AI Employees and their
 * versions (also the `AiEmployees` port), models, tools, and the schedule and notify_user nodes' ports.
 */
export const WorkflowCoreLive = Layer.mergeAll(AiEmployeesLive, RunnableWorkflowsLive, ManagedSchedulesLive, NudgeCardsLive, McpBindingsLive).pipe(
  Layer.provideMerge(Layer.mergeAll(WorkflowsRepo.Default, VersionsRepo.Default, ModelsLive, ToolsLive, ScheduleStore.Default))
)

/** The workflow service over the kernel: AI Employees, versions, publishing, voice trees, runs, HITL, traces. */
export const WorkflowLive = Layer.mergeAll(
  Workflows.Default,
  Publishing.Default,
  VoiceTrees.Default,
  RunAccessLive,
  PublicApp.Default,
  Webhooks.Default,
  Schedules.Default,
  ScheduleFiringLive,
  DocumentTriggers.Default,
  DocumentTriggerDispatchLive,
  SmtpListenerLive,
  Nudges.Default,
  RetentionHolds.Default,
  RetentionSweepLive
).pipe(
  Layer.provideMerge(InboundEmail.Default),
  Layer.provideMerge(Layer.mergeAll(RunStream.Default, Hitl.Default, Traces.Default, RunStartRate.Default)),
  Layer.provideMerge(Layer.mergeAll(Runs.Default, RunFeeds.Default)),
  Layer.provideMerge(Layer.mergeAll(RunsRepo.Default, RunTotals.Default)),
  Layer.provideMerge(RegistriesLive)
)

export const WorkflowHttpLive = isolated(
  Layer.mergeAll(
    WorkflowsHttp,
    AiEmployeesHttp,
    VoiceHttp,
    RunsHttp,
    HitlHttp,
    LlmProvidersHttp,
    PublicAppHttp,
    WebhooksHttp,
    WebhookDeliveryHttp,
    SchedulesHttp,
    DocumentTriggersHttp,
    InboundEmailHttp,
    NudgesHttp,
    RetentionHttp
  ),
  Authentication,
  Audit,
  Hitl,
  Publishing,
  Workflows,
  Runs,
  RunStartRate,
  RunStream,
  Traces,
  LlmProviders,
  PublicApp,
  DocumentTriggers,
  InboundEmail,
  Nudges,
  Schedules,
  Webhooks,
  VoiceTrees,
  RetentionHolds
)

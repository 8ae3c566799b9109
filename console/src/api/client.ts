import { FetchHttpClient, HttpApi, HttpApiClient, HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Cause, Effect, Exit, ManagedRuntime, Option } from "effect"
import { AgentsApi } from "../../../schemas/AgentApi"
import { ApiKeysApi, AuditApi, AuthMeApi, AuthPublicApi, GroupsApi, TenantsApi, UsersApi } from "../../../schemas/AuthApi"
import { ChatApi } from "../../../schemas/ChatApi"
import { DocgenApi } from "../../../schemas/DocgenApi"
import { EvalApi } from "../../../schemas/EvalApi"
import { IngestionApi } from "../../../schemas/IngestionApi"
import { IntegrationsApi, McpServersApi } from "../../../schemas/IntegrationApi"
import { HitlApi, PublicAppApi, RunsApi, WebhooksApi } from "../../../schemas/RunApi"
import { TicketingApi } from "../../../schemas/TicketingApi"
import { DocumentTriggersApi, InboundEmailApi, NudgesApi, SchedulesApi } from "../../../schemas/TriggerApi"
import { AiEmployeesApi, LlmProvidersApi, WorkflowsApi } from "../../../schemas/WorkflowApi"

/**
 * The groups of the contract (`schemas/Api.ts` mounts the same ones) the console calls: a client
 * of the whole API builds codecs for some 400 endpoints before the first page can ask anything,
 * a third of a second of a cold start on this machine. A page that needs another group adds it here.
 */
export const ConsoleApi = HttpApi.make("builder-platform")
  .add(AuthPublicApi)
  .add(AuthMeApi)
  .add(WorkflowsApi)
  .add(AiEmployeesApi)
  .add(AgentsApi)
  .add(IngestionApi)
  .add(LlmProvidersApi)
  .add(IntegrationsApi)
  .add(McpServersApi)
  .add(RunsApi)
  .add(HitlApi)
  .add(NudgesApi)
  .add(SchedulesApi)
  .add(WebhooksApi)
  .add(DocumentTriggersApi)
  .add(InboundEmailApi)
  .add(ChatApi)
  .add(PublicAppApi)
  .add(ApiKeysApi)
  .add(EvalApi)
  .add(TicketingApi)
  .add(UsersApi)
  .add(GroupsApi)
  .add(TenantsApi)
  .add(AuditApi)
  .add(DocgenApi)

/** What every failed call becomes in the console: the API's flat error body with its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ReadonlyArray<unknown> = [],
    readonly retryAfterSeconds?: number
  ) {
    super(message)
  }
}

const cookie = (name: string) => document.cookie.split("; ").find((c) => c.startsWith(`${name}=`))?.slice(name.length + 1)

/** The CSRF header a write carries (double submit of the readable cookie). */
export const csrfHeaders = (): Record<string, string> => {
  const token = cookie("csrf_token")
  return token === undefined ? {} : { "x-csrf-token": decodeURIComponent(token) }
}

/**
 * An error answer is read here as the API's error body and fails the call as ApiError, so that
 * every page sees one shape whatever the endpoint declares.
 */
const failOnError = (response: HttpClientResponse.HttpClientResponse) =>
  response.status < 400
    ? Effect.succeed(response)
    : Effect.flatMap(Effect.orElseSucceed(response.json, () => ({})), (body) => {
      const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>
      return Effect.die(
        new ApiError(
          response.status,
          typeof b.code === "string" ? b.code : `HTTP_${response.status}`,
          typeof b.message === "string" ? b.message : `The request failed (${response.status})`,
          Array.isArray(b.details) ? b.details : [],
          typeof b.retry_after_seconds === "number" ? b.retry_after_seconds : undefined
        )
      )
    })

const runtime = ManagedRuntime.make(FetchHttpClient.layer)

/** Same-origin requests carrying the session cookies, the CSRF token on writes (double submit). */
const httpClient = runtime.runPromise(Effect.map(HttpClient.HttpClient, (client) =>
  client.pipe(
    HttpClient.mapRequest((request) => {
      const token = cookie("csrf_token")
      return request.method === "GET" || token === undefined ? request : HttpClientRequest.setHeader(request, "x-csrf-token", decodeURIComponent(token))
    }),
    HttpClient.transformResponse(Effect.flatMap(failOnError))
  )))

type ConsoleGroups = typeof ConsoleApi extends HttpApi.HttpApi<string, infer Groups, infer _E, infer _R> ? Groups : never
type ConsoleError = typeof ConsoleApi extends HttpApi.HttpApi<string, infer _Groups, infer E, infer _R> ? E : never

/** The API client derived from the contract (`schemas/Api.ts`, HttpApiClient), one property a group. */
export type Client = HttpApiClient.Client<ConsoleGroups, ConsoleError, never>

/**
 * Each group's client is derived at its first use: deriving the codecs of every endpoint the
 * console may call took a second of the first page's load on a slow machine (issue 33's bench),
 * and a page calls two or three groups.
 */
const client = httpClient.then((http) => {
  const lazy = {}
  for (const { identifier } of Object.values(ConsoleApi.groups)) {
    let built: unknown
    Object.defineProperty(lazy, identifier, {
      enumerable: true,
      get: () => (built ??= Effect.runSync(HttpApiClient.group(ConsoleApi, { group: identifier, httpClient: http })))
    })
  }
  // Every group of ConsoleApi is a property above, so the object has the client's shape.
  return lazy as Client
})

const toApiError = (cause: Cause.Cause<unknown>): ApiError => {
  const defect = Option.getOrUndefined(Cause.dieOption(cause))
  if (defect instanceof ApiError) return defect
  const failure = Option.getOrUndefined(Cause.failureOption(cause))
  const message = failure instanceof Error ? failure.message : Cause.pretty(cause).split("\n")[0] ?? "The request failed"
  return new ApiError(0, "NETWORK", message)
}

const once = async <A, E>(f: (c: Client) => Effect.Effect<A, E>): Promise<A> => {
  const exit = await runtime.runPromiseExit(f(await client))
  if (Exit.isSuccess(exit)) return exit.value
  throw toApiError(exit.cause)
}

let refreshing: Promise<boolean> | undefined

/** The access cookie expired: the refresh cookie gets a new one (one refresh for every call waiting). */
const refresh = () => (refreshing ??= once((c) => c.authPublic.refresh({ payload: {} })).then(() => true, () => false).finally(() => {
  refreshing = undefined
}))

/** Calls the API; an expired session is refreshed once and the call tried again. */
export const api = async <A, E>(f: (c: Client) => Effect.Effect<A, E>): Promise<A> => {
  try {
    return await once(f)
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && error.code === "TOKEN_EXPIRED" && await refresh()) return once(f)
    throw error
  }
}

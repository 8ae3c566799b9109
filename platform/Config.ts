import { Config, ConfigError, Context, Effect, Either, Layer, Option, Redacted } from "effect"
import { isAllowlistEntry } from "./outbound/AddressPolicy.js"
import { StartupError } from "./StartupError.js"

export type ProcessRole = "all" | "gateway" | "services" | "runners"
export type BusKind = "memory" | "postgres" | "redis"
export type Tier = 1 | 2 | 3

export interface PlatformModel {
  readonly id: string
  readonly cost: Tier
  readonly speed: Tier
}

export interface AppConfigShape {
  readonly port: number
  readonly host: string
  readonly publicBaseUrl: string
  readonly corsOrigins: ReadonlyArray<string>
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly embeddedPostgresPort: Option.Option<number>
  readonly startupTimeoutSeconds: number
  readonly dataDir: string
  readonly redisUrl: Option.Option<string>
  readonly redisKeyPrefix: string
  readonly eventBus: BusKind
  readonly otlpEndpoint: Option.Option<string>
  readonly jwtSecret: Option.Option<Redacted.Redacted>
  readonly credentialsKey: Option.Option<Redacted.Redacted<Uint8Array>>
  readonly llmBaseUrl: Option.Option<string>
  readonly llmApiKey: Option.Option<Redacted.Redacted>
  readonly llmModels: ReadonlyArray<PlatformModel>
  readonly llmEmbeddingModel: Option.Option<string>
  readonly llmTimeoutSeconds: number
  /** How long in all one model call waits out its provider's rate limits (429) before it fails. */
  readonly llmRateLimitWaitSeconds: number
  /** Runs of one tenant active at once on a runner process, unless the tenant's settings say otherwise. */
  readonly tenantMaxRunsInFlight: number
  /** Runs of one tenant kept waiting in memory on a runner process; more are parked (their id only) until a slot frees. */
  readonly tenantMaxRunsWaiting: number
  /** Model calls of one tenant's runs in flight at once on a process, unless the tenant's settings say otherwise. */
  readonly tenantMaxModelCallsInFlight: number
  readonly tenantMaxRunStartsPerSecond: Option.Option<number>
  /** The event loop's mean lateness (ms) past which this process paces the run starts of tenants above their fair share (0: never). */
  readonly overloadLoopLagMs: number
  readonly functionTimeoutSeconds: number
  readonly mcpDiscoveryTimeoutSeconds: number
  readonly databaseQueryTimeoutSeconds: number
  /** Connections of this process's main pool to PostgreSQL at most (a second pool of 4 runs the group commits' statements). */
  readonly databasePoolSize: number
  readonly functionMaxResponseBytes: number
  readonly ticketingTimeoutSeconds: number
  readonly mcpStdioCommands: ReadonlyArray<string>
  readonly evalConcurrency: number
  readonly evalLeaseSeconds: number
  readonly embeddingBackfillSeconds: number
  readonly chatReconcileSeconds: number
  readonly traceMaxBytes: number
  /** Public app runs a client address may start per minute. */
  readonly publicAppRunsPerMinute: number
  /** Deliveries one webhook accepts per minute. */
  readonly webhookDeliveriesPerMinute: number
  readonly smtpUrl: Option.Option<Redacted.Redacted>
  readonly smtpFrom: string
  readonly smtpTimeoutSeconds: number
  readonly inboundSmtpPort: Option.Option<number>
  readonly inboundEmailDomain: Option.Option<string>
  readonly inboundEmailMaxBytes: number
  readonly bootstrapAdminEmail: Option.Option<string>
  readonly bootstrapAdminPassword: Option.Option<Redacted.Redacted>
  readonly bootstrapTenant: string
  readonly role: ProcessRole
  readonly authRpcUrl: Option.Option<string>
  readonly runnerHost: string
  readonly runnerPort: number
  /** How long a runner's hold on its shards outlives it (its runs move to the others after that). */
  readonly runnerLeaseSeconds: number
  readonly internalRpcToken: Option.Option<Redacted.Redacted>
  readonly accessTokenTtlSeconds: number
  readonly refreshTokenTtlSeconds: number
  readonly maxBodyBytes: number
  readonly shutdownGraceSeconds: number
  /** `pretty` (the default, for a terminal) or `json` (one object a line, with an access log line per request). */
  readonly logFormat: "pretty" | "json"
  readonly logLevel: "trace" | "debug" | "info" | "warning" | "error" | "none"
  /** Prompt and output bodies in the spans exported over OTLP (never by default; the API's own trace endpoints keep their role rules). */
  readonly otelExportContent: boolean
  /** When set, `GET /metrics` asks for `Authorization: Bearer <METRICS_TOKEN>`. */
  readonly metricsToken: Option.Option<Redacted.Redacted>
  readonly outboundAllowedHosts: ReadonlyArray<string>
  readonly maxJsonDepth: number
  readonly trustProxy: boolean
  readonly internalRpcHost: string
  readonly internalRpcPort: number
  readonly headersTimeoutSeconds: number
  readonly requestTimeoutSeconds: number
  readonly keepAliveTimeoutSeconds: number
  /** Threads of the worker pool (platform/workers): default the cores, at least 2. */
  readonly workerThreads: Option.Option<number>
  /** Threads one tenant's tasks may hold at once: default half the threads. */
  readonly workerTenantShare: Option.Option<number>
  /** Tasks one tenant may have running or waiting; more are refused (429 WORKERS_BUSY). */
  readonly workerTenantQueue: number
  readonly workerTaskTimeoutSeconds: number
  readonly workerMemoryMb: number
  /** Threads started with the platform, every task module loaded, so a first task does not wait for one. */
  readonly workerWarmThreads: number
  /** Days finished runs are kept unless their tenant says otherwise, the most a tenant may set, and how often the sweep looks. */
  readonly runRetentionDays: number
  readonly runRetentionMaxDays: number
  readonly retentionSweepSeconds: number
  /** How long a node serves a token's membership or a key's owner from memory (0: read on every request). */
  readonly authCacheSeconds: number
  /** scrypt's N for new password hashes is 2 to this power (15 by default; lower only for test suites). */
  readonly passwordHashCost: number
}

const invalid = (name: string, message: string) => Either.left(ConfigError.InvalidData([name], message))

const port = (name: string) =>
  Config.integer(name).pipe(Config.validate({ message: "must be a port number (1-65535)", validation: (n) => n >= 1 && n <= 65535 }))

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 }),
    Config.withDefault(fallback)
  )

const positiveOption = (name: string) =>
  Config.option(Config.integer(name).pipe(Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 })))

const url = (name: string, protocols: ReadonlyArray<string>) =>
  Config.string(name).pipe(Config.mapOrFail((value) => {
    const parsed = URL.canParse(value) ? new URL(value) : undefined
    return parsed !== undefined && protocols.includes(parsed.protocol)
      ? Either.right(value)
      : invalid(name, `must be a URL starting with ${protocols.map((p) => `${p}//`).join(" or ")}`)
  }))

const TIERS = /^(.+):(\d+):(\d+)$/

/** `LLM_MODELS` entries: `name` or `name:cost:speed` (tiers 1-3). A name may hold colons itself (`llama3.1:8b`). */
export const parseModelEntry = (entry: string): Either.Either<PlatformModel, string> => {
  if (entry.length === 0 || /\s/.test(entry)) return Either.left(`"${entry}" is not a model name`)
  const tiers = TIERS.exec(entry)
  if (tiers === null) return Either.right({ id: entry, cost: 2, speed: 2 })
  const [cost, speed] = [Number(tiers[2]), Number(tiers[3])]
  const isTier = (n: number): n is Tier => n >= 1 && n <= 3
  return isTier(cost) && isTier(speed)
    ? Either.right({ id: tiers[1], cost, speed })
    : Either.left(`"${entry}" has tiers outside 1-3 (the form is name or name:cost:speed)`)
}

const models = Config.string("LLM_MODELS").pipe(
  Config.withDefault(""),
  Config.mapOrFail((value) => {
    const entries = value.split(",").map((m) => m.trim()).filter((m) => m.length > 0).map(parseModelEntry)
    const bad = entries.filter(Either.isLeft).map((e) => e.left)
    return bad.length > 0 ? invalid("LLM_MODELS", bad.join(", ")) : Either.right(entries.filter(Either.isRight).map((e) => e.right))
  })
)

const credentialsKey = Config.redacted("CREDENTIALS_KEY").pipe(Config.mapOrFail((secret) => {
  const text = Redacted.value(secret).trim()
  const key = Buffer.from(text, "base64")
  return /^[A-Za-z0-9+/]+={0,2}$/.test(text) && key.length === 32
    ? Either.right(Redacted.make(new Uint8Array(key)))
    : invalid("CREDENTIALS_KEY", "must be 32 random bytes in base64 (openssl rand -base64 32)")
}))

const origins = Config.string("CORS_ORIGINS").pipe(
  Config.withDefault(""),
  Config.mapOrFail((value) => {
    const list = value.split(",").map((o) => o.trim()).filter((o) => o.length > 0)
    const bad = list.filter((o) => !URL.canParse(o) || new URL(o).origin !== o)
    return bad.length > 0 ? invalid("CORS_ORIGINS", `${bad.join(", ")} is not an origin such as https://app.example.com`) : Either.right(list)
  })
)

const allowedHosts = Config.string("OUTBOUND_ALLOWED_HOSTS").pipe(
  Config.withDefault(""),
  Config.mapOrFail((value) => {
    const list = value.split(",").map((h) => h.trim()).filter((h) => h.length > 0)
    const bad = list.filter((h) => !isAllowlistEntry(h))
    return bad.length > 0
      ? invalid("OUTBOUND_ALLOWED_HOSTS", `${bad.join(", ")} is not a host name, IP address or CIDR range`)
      : Either.right(list)
  })
)

const raw = Config.all({
  port: port("PORT").pipe(Config.withDefault(8080)),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  publicBaseUrl: Config.option(url("PUBLIC_BASE_URL", ["http:", "https:"])),
  corsOrigins: origins,
  databaseUrl: Config.option(url("DATABASE_URL", ["postgres:", "postgresql:"]).pipe(Config.map(Redacted.make))),
  embeddedPostgresPort: Config.option(port("EMBEDDED_POSTGRES_PORT")),
  startupTimeoutSeconds: positive("STARTUP_TIMEOUT_SECONDS", 60),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  redisUrl: Config.option(url("REDIS_URL", ["redis:", "rediss:"])),
  redisKeyPrefix: Config.string("REDIS_KEY_PREFIX").pipe(Config.withDefault("bp:")),
  eventBus: Config.option(Config.literal("memory", "postgres", "redis")("EVENT_BUS")),
  otlpEndpoint: Config.option(url("OTEL_EXPORTER_OTLP_ENDPOINT", ["http:", "https:"])),
  jwtSecret: Config.option(Config.redacted("JWT_SECRET")),
  credentialsKey: Config.option(credentialsKey),
  llmBaseUrl: Config.option(url("LLM_BASE_URL", ["http:", "https:"])),
  llmApiKey: Config.option(Config.redacted("LLM_API_KEY")),
  llmModels: models,
  llmEmbeddingModel: Config.option(Config.string("LLM_EMBEDDING_MODEL")),
  llmTimeoutSeconds: positive("LLM_TIMEOUT_SECONDS", 120),
  llmRateLimitWaitSeconds: positive("LLM_RATE_LIMIT_WAIT_SECONDS", 120),
  tenantMaxRunsInFlight: positive("TENANT_MAX_RUNS_IN_FLIGHT", 64),
  tenantMaxRunsWaiting: positive("TENANT_MAX_RUNS_WAITING", 1000),
  tenantMaxModelCallsInFlight: positive("TENANT_MAX_MODEL_CALLS_IN_FLIGHT", 32),
  tenantMaxRunStartsPerSecond: positiveOption("TENANT_MAX_RUN_STARTS_PER_SECOND"),
  overloadLoopLagMs: Config.integer("OVERLOAD_LOOP_LAG_MS").pipe(
    Config.validate({ message: "must be zero or more", validation: (n) => n >= 0 }),
    Config.withDefault(5)
  ),
  functionTimeoutSeconds: positive("FUNCTION_TIMEOUT_SECONDS", 30),
  mcpDiscoveryTimeoutSeconds: positive("MCP_DISCOVERY_TIMEOUT_SECONDS", 15),
  databaseQueryTimeoutSeconds: positive("DATABASE_QUERY_TIMEOUT_SECONDS", 60),
  databasePoolSize: Config.integer("DATABASE_POOL_SIZE").pipe(
    Config.validate({ message: "must be an integer from 2 to 1000", validation: (n) => n >= 2 && n <= 1000 }),
    Config.withDefault(20)
  ),
  functionMaxResponseBytes: positive("FUNCTION_MAX_RESPONSE_BYTES", 1024 * 1024),
  ticketingTimeoutSeconds: positive("TICKETING_TIMEOUT_SECONDS", 10),
  evalConcurrency: positive("EVAL_CONCURRENCY", 16),
  evalLeaseSeconds: positive("EVAL_LEASE_SECONDS", 30),
  mcpStdioCommands: Config.string("MCP_STDIO_COMMANDS").pipe(
    Config.withDefault(""),
    Config.map((s) => s.split(",").map((c) => c.trim()).filter((c) => c !== ""))
  ),
  embeddingBackfillSeconds: positive("EMBEDDING_BACKFILL_SECONDS", 30),
  chatReconcileSeconds: positive("CHAT_RECONCILE_SECONDS", 30),
  traceMaxBytes: positive("TRACE_MAX_BYTES", 10 * 1024 * 1024),
  publicAppRunsPerMinute: positive("PUBLIC_APP_RUNS_PER_MINUTE", 30),
  webhookDeliveriesPerMinute: positive("WEBHOOK_DELIVERIES_PER_MINUTE", 600),
  smtpUrl: Config.option(url("SMTP_URL", ["smtp:", "smtps:"]).pipe(Config.map(Redacted.make))),
  smtpFrom: Config.string("SMTP_FROM").pipe(Config.withDefault("Builder Platform <no-reply@builder.local>")),
  smtpTimeoutSeconds: positive("SMTP_TIMEOUT_SECONDS", 30),
  inboundSmtpPort: Config.option(port("INBOUND_SMTP_PORT")),
  inboundEmailDomain: Config.option(Config.string("INBOUND_EMAIL_DOMAIN")),
  inboundEmailMaxBytes: positive("INBOUND_EMAIL_MAX_BYTES", 25 * 1024 * 1024),
  bootstrapAdminEmail: Config.option(Config.string("BOOTSTRAP_ADMIN_EMAIL")),
  bootstrapAdminPassword: Config.option(Config.redacted("BOOTSTRAP_ADMIN_PASSWORD")),
  bootstrapTenant: Config.string("BOOTSTRAP_TENANT").pipe(Config.withDefault("default")),
  role: Config.literal("all", "gateway", "services", "runners")("ROLE").pipe(Config.withDefault("all" as const)),
  authRpcUrl: Config.option(url("AUTH_RPC_URL", ["http:", "https:"])),
  runnerHost: Config.string("RUNNER_HOST").pipe(Config.withDefault("127.0.0.1")),
  runnerPort: port("RUNNER_PORT").pipe(Config.withDefault(34431)),
  runnerLeaseSeconds: positive("RUNNER_LEASE_SECONDS", 15),
  internalRpcToken: Config.option(Config.redacted("INTERNAL_RPC_TOKEN")),
  accessTokenTtlSeconds: positive("ACCESS_TOKEN_TTL_SECONDS", 900),
  refreshTokenTtlSeconds: positive("REFRESH_TOKEN_TTL_SECONDS", 30 * 24 * 3600),
  maxBodyBytes: positive("MAX_BODY_BYTES", 10 * 1024 * 1024),
  outboundAllowedHosts: allowedHosts,
  maxJsonDepth: positive("MAX_JSON_DEPTH", 64),
  trustProxy: Config.boolean("TRUST_PROXY").pipe(Config.withDefault(false)),
  internalRpcHost: Config.string("INTERNAL_RPC_HOST").pipe(Config.withDefault("127.0.0.1")),
  internalRpcPort: port("INTERNAL_RPC_PORT").pipe(Config.withDefault(8091)),
  headersTimeoutSeconds: positive("HEADERS_TIMEOUT_SECONDS", 10),
  requestTimeoutSeconds: positive("REQUEST_TIMEOUT_SECONDS", 120),
  keepAliveTimeoutSeconds: positive("KEEP_ALIVE_TIMEOUT_SECONDS", 5),
  workerThreads: positiveOption("WORKER_THREADS"),
  workerTenantShare: positiveOption("WORKER_TENANT_SHARE"),
  workerTenantQueue: positive("WORKER_TENANT_QUEUE", 32),
  workerTaskTimeoutSeconds: positive("WORKER_TASK_TIMEOUT_SECONDS", 15),
  workerMemoryMb: Config.integer("WORKER_MEMORY_MB").pipe(
    Config.validate({ message: "must be at least 64", validation: (n) => n >= 64 }),
    Config.withDefault(512)
  ),
  workerWarmThreads: Config.integer("WORKER_WARM_THREADS").pipe(
    Config.validate({ message: "must be zero or more", validation: (n) => n >= 0 }),
    Config.withDefault(1)
  ),
  runRetentionDays: positive("RUN_RETENTION_DAYS", 30),
  runRetentionMaxDays: positive("RUN_RETENTION_MAX_DAYS", 365),
  retentionSweepSeconds: positive("RETENTION_SWEEP_SECONDS", 300),
  authCacheSeconds: Config.integer("AUTH_CACHE_SECONDS").pipe(
    Config.validate({ message: "must be zero or more", validation: (n) => n >= 0 }),
    Config.withDefault(5)
  ),
  passwordHashCost: Config.integer("PASSWORD_HASH_COST").pipe(
    Config.validate({ message: "must be an integer from 10 to 16", validation: (n) => n >= 10 && n <= 16 }),
    Config.withDefault(15)
  ),
  shutdownGraceSeconds: Config.integer("SHUTDOWN_GRACE_SECONDS").pipe(
    Config.validate({ message: "must be zero or more", validation: (n) => n >= 0 }),
    Config.withDefault(10)
  ),
  logFormat: Config.literal("pretty", "json")("LOG_FORMAT").pipe(Config.withDefault("pretty" as const)),
  logLevel: Config.literal("trace", "debug", "info", "warning", "error", "none")("LOG_LEVEL").pipe(Config.withDefault("info" as const)),
  otelExportContent: Config.boolean("OTEL_EXPORT_CONTENT").pipe(Config.withDefault(false)),
  metricsToken: Config.option(Config.redacted("METRICS_TOKEN"))
})

const issues = (error: ConfigError.ConfigError): ReadonlyArray<string> =>
  ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, left: ReadonlyArray<string>, right: ReadonlyArray<string>) => [...left, ...right],
    orCase: (_, left: ReadonlyArray<string>, right: ReadonlyArray<string>) => [...left, ...right],
    invalidDataCase: (_, path, message) => [`${path.join("_")}: ${message.replace(/^Expected/, "expected")}`],
    missingDataCase: (_, path, message) => [`${path.join("_")}: ${message}`],
    sourceUnavailableCase: (_, path, message) => [`${path.join("_")}: ${message}`],
    unsupportedCase: (_, path, message) => [`${path.join("_")}: ${message}`]
  })

/** Configuration as 00-decisions section 1, plus the documented extras (README "Configuration"). */
export class AppConfig extends Context.Tag("AppConfig")<AppConfig, AppConfigShape>() {
  static readonly config: Config.Config<AppConfigShape> = raw.pipe(
    Config.map((c) => ({
      ...c,
      publicBaseUrl: Option.getOrElse(c.publicBaseUrl, () => `http://${c.host}:${c.port}`).replace(/\/+$/, ""),
      // One process needs no cross-node bus; split processes share PostgreSQL's LISTEN/NOTIFY unless Redis is set.
      eventBus: Option.getOrElse(
        c.eventBus,
        (): BusKind => Option.isSome(c.redisUrl) ? "redis" : c.role === "all" ? "memory" : "postgres"
      )
    }))
  )

  /** Every malformed variable is reported at once, on one line. */
  static readonly load = AppConfig.config.pipe(
    Effect.mapError((error) =>
      new StartupError({
        message: `Configuration is invalid: ${issues(error).join("; ")}. Fix these variables (environment or .env) and start again.`
      })
    ),
    Effect.filterOrFail(
      (c) => c.headersTimeoutSeconds <= c.requestTimeoutSeconds,
      () => new StartupError({ message: "Configuration is invalid: HEADERS_TIMEOUT_SECONDS may not exceed REQUEST_TIMEOUT_SECONDS. Fix one of them." })
    ),
    Effect.filterOrFail(
      (c) => Option.isNone(c.authRpcUrl) || Option.isSome(c.internalRpcToken),
      () =>
        new StartupError({
          message: "Configuration is invalid: AUTH_RPC_URL needs INTERNAL_RPC_TOKEN (the secret the services process expects). Set it and start again."
        })
    ),
    Effect.filterOrFail(
      (c) => c.eventBus !== "redis" || Option.isSome(c.redisUrl),
      () => new StartupError({ message: "Configuration is invalid: EVENT_BUS=redis needs REDIS_URL. Set REDIS_URL or choose EVENT_BUS=postgres." })
    )
  )

  static readonly layer = Layer.effect(AppConfig, AppConfig.load)
}

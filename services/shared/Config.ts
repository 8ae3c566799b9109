import { Config, Context, Effect, Layer, Option, Redacted } from "effect"

export type ProcessRole = "all" | "gateway" | "services" | "runners"

export interface AppConfigShape {
  readonly port: number
  readonly host: string
  readonly publicBaseUrl: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly redisUrl: Option.Option<string>
  readonly redisKeyPrefix: string
  readonly otlpEndpoint: Option.Option<string>
  readonly jwtSecret: Option.Option<Redacted.Redacted>
  readonly credentialsKey: Option.Option<Redacted.Redacted>
  readonly llmBaseUrl: Option.Option<string>
  readonly llmApiKey: Option.Option<Redacted.Redacted>
  readonly llmModels: ReadonlyArray<string>
  readonly llmEmbeddingModel: Option.Option<string>
  readonly llmTimeoutSeconds: number
  readonly embeddingBackfillSeconds: number
  readonly chatReconcileSeconds: number
  readonly traceMaxBytes: number
  readonly smtpUrl: Option.Option<Redacted.Redacted>
  readonly smtpFrom: string
  readonly inboundSmtpPort: Option.Option<number>
  readonly inboundEmailDomain: Option.Option<string>
  readonly bootstrapAdminEmail: Option.Option<string>
  readonly bootstrapAdminPassword: Option.Option<Redacted.Redacted>
  readonly bootstrapTenant: string
  readonly role: ProcessRole
  readonly authRpcUrl: Option.Option<string>
  readonly runnerHost: string
  readonly runnerPort: number
  readonly internalRpcToken: Option.Option<Redacted.Redacted>
  readonly accessTokenTtlSeconds: number
  readonly refreshTokenTtlSeconds: number
  readonly maxBodyBytes: number
  readonly shutdownGraceSeconds: number
}

/** Configuration exactly as 00-decisions section 1, plus a few documented extras. */
export class AppConfig extends Context.Tag("AppConfig")<AppConfig, AppConfigShape>() {
  static readonly config: Config.Config<AppConfigShape> = Config.all({
    port: Config.integer("PORT").pipe(Config.withDefault(8080)),
    host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
    publicBaseUrl: Config.option(Config.string("PUBLIC_BASE_URL")),
    databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
    dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
    redisUrl: Config.option(Config.string("REDIS_URL")),
    redisKeyPrefix: Config.string("REDIS_KEY_PREFIX").pipe(Config.withDefault("bp:")),
    otlpEndpoint: Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")),
    jwtSecret: Config.option(Config.redacted("JWT_SECRET")),
    credentialsKey: Config.option(Config.redacted("CREDENTIALS_KEY")),
    llmBaseUrl: Config.option(Config.string("LLM_BASE_URL")),
    llmApiKey: Config.option(Config.redacted("LLM_API_KEY")),
    llmModels: Config.string("LLM_MODELS").pipe(
      Config.withDefault(""),
      Config.map((s) => s.split(",").map((m) => m.trim()).filter((m) => m.length > 0))
    ),
    llmEmbeddingModel: Config.option(Config.string("LLM_EMBEDDING_MODEL")),
    llmTimeoutSeconds: Config.integer("LLM_TIMEOUT_SECONDS").pipe(Config.withDefault(120)),
    embeddingBackfillSeconds: Config.integer("EMBEDDING_BACKFILL_SECONDS").pipe(Config.withDefault(30)),
    chatReconcileSeconds: Config.integer("CHAT_RECONCILE_SECONDS").pipe(Config.withDefault(30)),
    traceMaxBytes: Config.integer("TRACE_MAX_BYTES").pipe(Config.withDefault(10 * 1024 * 1024)),
    smtpUrl: Config.option(Config.redacted("SMTP_URL")),
    smtpFrom: Config.string("SMTP_FROM").pipe(Config.withDefault("Builder Platform <no-reply@builder.local>")),
    inboundSmtpPort: Config.option(Config.integer("INBOUND_SMTP_PORT")),
    inboundEmailDomain: Config.option(Config.string("INBOUND_EMAIL_DOMAIN")),
    bootstrapAdminEmail: Config.option(Config.string("BOOTSTRAP_ADMIN_EMAIL")),
    bootstrapAdminPassword: Config.option(Config.redacted("BOOTSTRAP_ADMIN_PASSWORD")),
    bootstrapTenant: Config.string("BOOTSTRAP_TENANT").pipe(Config.withDefault("default")),
    role: Config.literal("all", "gateway", "services", "runners")("ROLE").pipe(Config.withDefault("all" as const)),
    authRpcUrl: Config.option(Config.string("AUTH_RPC_URL")),
    runnerHost: Config.string("RUNNER_HOST").pipe(Config.withDefault("127.0.0.1")),
    runnerPort: Config.integer("RUNNER_PORT").pipe(Config.withDefault(34431)),
    internalRpcToken: Config.option(Config.redacted("INTERNAL_RPC_TOKEN")),
    accessTokenTtlSeconds: Config.integer("ACCESS_TOKEN_TTL_SECONDS").pipe(Config.withDefault(900)),
    refreshTokenTtlSeconds: Config.integer("REFRESH_TOKEN_TTL_SECONDS").pipe(Config.withDefault(30 * 24 * 3600)),
    maxBodyBytes: Config.integer("MAX_BODY_BYTES").pipe(Config.withDefault(10 * 1024 * 1024)),
    shutdownGraceSeconds: Config.integer("SHUTDOWN_GRACE_SECONDS").pipe(Config.withDefault(10))
  }).pipe(
    Config.map((c) => ({
      ...c,
      publicBaseUrl: Option.getOrElse(c.publicBaseUrl, () => `http://${c.host}:${c.port}`)
    }))
  )

  static readonly layer = Layer.effect(AppConfig, Effect.orDie(AppConfig.config))
}

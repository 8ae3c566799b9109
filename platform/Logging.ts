import { Cause, Config, Effect, FiberRefs, HashMap, Layer, List, Logger, LogLevel } from "effect"
import { quietRepeats } from "./QuietLogger.js"
import { CurrentRequest } from "./RequestContext.js"

const LEVELS = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  none: LogLevel.None
} as const

const text = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ")
}

/**
 * One JSON object a line on stdout: `level`, `time`, `message`, the request id of the request
 * being served, the log's annotations (`run_id`, `tenant_id`, an access line's `method`, `route`,
 * `status`, `duration_ms`), the open log spans, and `error` (the cause, rendered) when there is one.
 */
export const jsonLogger = Logger.make<unknown, void>(({ annotations, cause, context, date, logLevel, message, spans }) => {
  const request = FiberRefs.getOrDefault(context, CurrentRequest)
  const record: Record<string, unknown> = {
    level: logLevel.label.toLowerCase(),
    time: date.toISOString(),
    message: text(message)
  }
  if (request !== undefined) record.request_id = request.requestId
  for (const [key, value] of HashMap.toEntries(annotations)) record[key] = value
  for (const span of List.toArray(spans)) record[`span.${span.label}_ms`] = date.getTime() - span.startTime
  if (!Cause.isEmpty(cause)) record.error = Cause.pretty(cause, { renderErrorCause: true })
  process.stdout.write(`${JSON.stringify(record)}\n`)
})

/**
 * The process's logger from `LOG_FORMAT` (`pretty`, the default, or `json`) and `LOG_LEVEL`
 * (default `info`); repeated warnings are written once a minute (QuietLogger). Malformed values
 * fall back to the defaults here and are reported by the configuration check at start.
 */
export const LoggingLive = Layer.unwrapEffect(
  Effect.map(
    Config.all({
      format: Config.literal("pretty", "json")("LOG_FORMAT").pipe(Config.withDefault("pretty" as const)),
      level: Config.literal("trace", "debug", "info", "warning", "error", "none")("LOG_LEVEL").pipe(Config.withDefault("info" as const))
    }).pipe(Effect.orElseSucceed(() => ({ format: "pretty" as const, level: "info" as const }))),
    ({ format, level }) =>
      Layer.merge(
        Logger.replace(Logger.defaultLogger, quietRepeats(format === "json" ? jsonLogger : Logger.prettyLogger())),
        Logger.minimumLogLevel(LEVELS[level])
      )
  )
)

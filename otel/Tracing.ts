import { NodeSdk } from "@effect/opentelemetry"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Option } from "effect"
import { AppConfig } from "../services/shared/Config.js"

export const SERVICE_NAME = "builder-platform"

/**
 * The Effect tracer on the OpenTelemetry SDK. Spans of every service operation go to
 * `OTEL_EXPORTER_OTLP_ENDPOINT` over OTLP/HTTP when it is set (Jaeger, Tempo, a collector).
 */
export const TracingLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.otlpEndpoint, {
      onNone: () => Layer.empty,
      onSome: (endpoint) =>
        NodeSdk.layer(() => ({
          resource: { serviceName: SERVICE_NAME },
          spanProcessor: new BatchSpanProcessor(
            new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, "")}/v1/traces` }),
            { scheduledDelayMillis: 1000 }
          )
        }))
    }))
)

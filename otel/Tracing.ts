import { NodeSdk } from "@effect/opentelemetry"
import { Effect, Layer } from "effect"
import { SERVICE_NAME, Telemetry } from "./Telemetry.js"

export { SERVICE_NAME }

/**
 * The Effect tracer on the OpenTelemetry SDK, with Telemetry's span processors: run spans are
 * stored for the trace endpoints, and everything goes over OTLP/HTTP when an endpoint is set.
 */
export const TracingLive = NodeSdk.layer(
  Effect.map(Telemetry, (telemetry) => ({
    resource: { serviceName: SERVICE_NAME },
    spanProcessor: telemetry.processors
  }))
).pipe(Layer.provideMerge(Telemetry.layer))

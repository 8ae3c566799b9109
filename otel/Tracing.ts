import { NodeSdk } from "@effect/opentelemetry"
import { Effect, Layer } from "effect"
import { AppConfig } from "../platform/Config.js"
import { serviceSpans } from "../platform/Traced.js"
import { serviceIdentity } from "./ServiceIdentity.js"
import { SERVICE_NAME, Telemetry } from "./Telemetry.js"
import { makeWallClock } from "./WallClock.js"

export { SERVICE_NAME }

/**
 * The Effect tracer. With `OTEL_EXPORTER_OTLP_ENDPOINT` it is the OpenTelemetry SDK's, with
 * Telemetry's span processors (run spans stored for the trace endpoints, every span exported
 * over OTLP/HTTP); without, the light tracer, which hands run spans to the same store and keeps
 * the SDK and its context manager off the hot path; service operations then open no spans
 * (`serviceSpans`: they would go nowhere). Span times come from the wall clock
 * (`WallClock.ts`).
 */
export const TracingLive = Layer.unwrapEffect(
  Effect.map(Effect.all([Telemetry, AppConfig]), ([telemetry, config]) =>
    telemetry.exporting
      ? NodeSdk.layer(() => {
        const identity = serviceIdentity(config)
        return { resource: { serviceName: identity.serviceName, attributes: identity.attributes }, spanProcessor: telemetry.processors }
      })
      : Layer.merge(Layer.setTracer(telemetry.lightTracer), Layer.locallyScoped(serviceSpans, false)))
).pipe(Layer.merge(Layer.setClock(makeWallClock())), Layer.provideMerge(Telemetry.layer))

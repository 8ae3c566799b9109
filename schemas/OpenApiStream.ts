import { JSONSchema } from "effect"
import { RunStreamEvent } from "./RunLifecycle.js"

type Json = Record<string, unknown>

const STREAM_NOTE = "Server-Sent Events: each `data:` line is one `RunStreamEvent` (components/schemas/RunStreamEvent: every event " +
  "type with its payload), its `id:` the event's number (resume with Last-Event-ID); the stream ends after run_completed, " +
  "run_failed, run_cancelled or run_skipped; reopened at or after that event (as EventSource does once the server closes it), " +
  "it is answered 204 No Content, which tells an EventSource to stop reconnecting. A `: keep-alive` comment comes first when nothing else is sent at once, then every 15 s; " +
  "when the process stops, the stream ends (resume elsewhere with Last-Event-ID)."

/** Every event on the wire also names its run (the SSE encoder adds `run_id` to the stored payload). */
const withRunId = (schema: JSONSchema.JsonSchema7): Json => {
  const members = "anyOf" in schema ? schema.anyOf : [schema]
  return {
    anyOf: members.map((member) =>
      "properties" in member && "required" in member
        ? { ...member, required: [...member.required, "run_id"], properties: { ...member.properties, run_id: { type: "string", format: "uuid" } } }
        : member
    )
  }
}

/**
 * The run stream's events in the OpenAPI document: `text/event-stream` bodies have no schema of
 * their own in OpenAPI 3.1, so the events are a named component that the stream operations
 * point to.
 */
export const withStreamEvents = (spec: Json): Json => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const event = withRunId(
    JSONSchema.fromAST(RunStreamEvent.ast, {
      definitions,
      definitionPath: "#/components/schemas/",
      target: "openApi3.1",
      // The stream sends what the journal stored: a payload may carry fields newer than this document.
      additionalPropertiesStrategy: "allow"
    })
  )
  const components = (spec.components ?? {}) as Json
  const paths = (spec.paths ?? {}) as Record<string, Json>
  for (const [path, item] of Object.entries(paths)) {
    const get = item.get as Json | undefined
    if (!path.endsWith("/stream") || get === undefined) continue
    get.description = typeof get.description === "string" && get.description !== "" ? `${get.description}\n\n${STREAM_NOTE}` : STREAM_NOTE
  }
  return { ...spec, components: { ...components, schemas: { ...(components.schemas as Json | undefined), ...definitions, RunStreamEvent: event } } }
}

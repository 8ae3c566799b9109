import { OpenApi } from "@effect/platform"
import { Effect, Layer } from "effect"
import { globalValue } from "effect/GlobalValue"
import { existsSync, readFileSync } from "node:fs"
import { PlatformApi } from "../../schemas/Api.js"

/**
 * The document scripts/build-server.mjs derives from the same schemas, beside the bundle; absent
 * when the platform runs from its sources.
 */
const BUILT_DOCUMENT = new URL("openapi-document.json", import.meta.url)

/**
 * Where @effect/platform keeps each API's document (OpenApi.fromApi derives it once a process).
 * Should its key change in a later version, this is another map and the document is derived as
 * before.
 */
const documents = globalValue("@effect/platform/OpenApi/apiCache", () => new WeakMap<object, OpenApi.OpenAPISpec>())

/**
 * The OpenAPI document (/api/v1/openapi.json, /docs) before the listener opens: read from the
 * build, or derived (0.3 s of CPU here, more on a small machine), which, once the listener is open,
 * would leave the requests of a starting platform unanswered instead of answered 503. The one API
 * object serves every deployment in a process (the server it names is added where the document is
 * served).
 */
export const OpenApiDocumentLive = Layer.effectDiscard(Effect.sync(() => {
  if (!documents.has(PlatformApi) && existsSync(BUILT_DOCUMENT)) {
    documents.set(PlatformApi, JSON.parse(readFileSync(BUILT_DOCUMENT, "utf8")) as OpenApi.OpenAPISpec)
  }
  OpenApi.fromApi(PlatformApi)
}))

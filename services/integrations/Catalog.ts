import { Effect, Option } from "effect"
import { fetch as undiciFetch } from "undici"
import { AnswerTooLarge, cappedText } from "../../platform/outbound/CappedJson.js"
import { isDeadlinePassed, withinDeadline } from "../../platform/outbound/Deadline.js"
import { OutboundGuard } from "../../platform/outbound/OutboundGuard.js"
import { traced } from "../../platform/Traced.js"
import { taskError } from "../../platform/workers/TaskErrors.js"
import { WorkerPool, workerTask } from "../../platform/workers/WorkerPool.js"
import { INTEGRATION_ADMINS, requireEnvAdmin, requireReader, requireRole } from "../../schemas/Authorization.js"
import { badRequest, conflict, notFound, unprocessable } from "../../schemas/Errors.js"
import type { CatalogEntryRequest, FunctionDefinition, ImportSpecRequest, IntegrationAuth } from "../../schemas/Integration.js"
import type { Principal } from "../../schemas/Principal.js"
import { CatalogRepo } from "./CatalogRepo.js"
import type * as OpenApiTask from "./OpenApiTask.js"

const MAX_SPEC_BYTES = 5 * 1024 * 1024
const importTask = workerTask<typeof OpenApiTask, "importOpenApi">(new URL("./OpenApiTask.js", import.meta.url), "importOpenApi")

/** The catalog: entries everyone sees, entries administrators author or import from OpenAPI. */
export class Catalog extends Effect.Service<Catalog>()("Catalog", {
  dependencies: [CatalogRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* CatalogRepo
    const guard = yield* OutboundGuard
    const workers = yield* WorkerPool

    const refused = (field: string) => (e: { readonly message: string }) =>
      unprocessable("OUTBOUND_ADDRESS_REFUSED", e.message, [{ path: [field], message: e.message }])

    const checkedBase = (baseUrl: string | undefined, field = "base_url") =>
      Effect.gen(function*() {
        if (baseUrl === undefined) return null
        const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined
        if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
          return yield* badRequest("VALIDATION_ERROR", `${field} must be an http(s) URL`, [{ path: [field], message: "not an http(s) URL" }])
        }
        yield* guard.checkUrl(baseUrl).pipe(Effect.mapError(refused(field)))
        return baseUrl.replace(/\/+$/, "")
      })

    const author = (principal: Principal, scope: "catalog" | "custom") =>
      Effect.zipRight(
        requireRole(principal, INTEGRATION_ADMINS, "Authoring catalog entries needs an administrator"),
        scope === "catalog" ? requireEnvAdmin(principal) : Effect.void
      )

    const store = (principal: Principal, entry: {
      scope: "catalog" | "custom"
      name: string
      displayName: string
      category: string
      baseUrl: string | null
      auth: IntegrationAuth
      functions: ReadonlyArray<FunctionDefinition>
    }) =>
      Effect.gen(function*() {
        const names = entry.functions.map((f) => f.name)
        const repeated = names.find((n, i) => names.indexOf(n) !== i)
        if (repeated !== undefined) {
          return yield* badRequest("VALIDATION_ERROR", `Two functions are named '${repeated}'`, [{ path: ["functions"], message: "repeated name" }])
        }
        // The token URL is fetched by the platform (code exchange, refresh): it is guarded like base_url.
        if (entry.auth.type === "oauth2") {
          yield* checkedBase(entry.auth.token_url, "auth.token_url")
        }
        if (entry.functions.some((f) => f.kind === "http") && entry.baseUrl === null) {
          return yield* badRequest("VALIDATION_ERROR", "http functions need the entry's base_url", [{ path: ["base_url"], message: "required" }])
        }
        const id = yield* repo.insert({ ...entry, tenantId: entry.scope === "catalog" ? null : principal.tenantId, createdBy: principal.userId })
        if (Option.isNone(id)) return yield* conflict("CATALOG_NAME_TAKEN", `A catalog entry named '${entry.name}' exists`)
        return Option.getOrThrow(yield* repo.get(principal.tenantId, id.value))
      })

    const create = (principal: Principal, body: typeof CatalogEntryRequest.Type) =>
      Effect.gen(function*() {
        yield* author(principal, body.scope)
        return yield* store(principal, {
          scope: body.scope,
          name: body.name,
          displayName: body.display_name ?? body.name,
          category: body.category,
          baseUrl: yield* checkedBase(body.base_url),
          auth: body.auth,
          functions: body.functions
        })
      })

    /** A spec by URL is fetched through the outbound guard, like every tenant-supplied URL, and read no further than 5 MiB. */
    const fetchSpec = (specUrl: string) =>
      Effect.gen(function*() {
        yield* checkedBase(specUrl, "spec_url")
        return yield* withinDeadline(15_000, async (signal) => {
          const response = await undiciFetch(specUrl, { dispatcher: guard.dispatcher, signal })
          if (!response.ok) {
            await response.body?.cancel()
            throw new Error(`it answered ${response.status}`)
          }
          return await cappedText(response, MAX_SPEC_BYTES)
        }).pipe(
          Effect.mapError((e) =>
            e instanceof AnswerTooLarge
              ? badRequest("INVALID_SPEC", "The document is over 5 MiB", [{ path: ["spec_url"], message: "over 5 MiB" }])
              : badRequest(
                "INVALID_SPEC",
                `spec_url could not be read: ${isDeadlinePassed(e) ? "no answer within 15 s" : e instanceof Error ? e.message : String(e)}`,
                [{
                  path: ["spec_url"],
                  message: "could not be read"
                }]
              )
          )
        )
      })

    const importSpec = (principal: Principal, body: typeof ImportSpecRequest.Type) =>
      Effect.gen(function*() {
        yield* author(principal, body.scope)
        const fetched = body.spec === undefined && body.spec_url !== undefined ? yield* fetchSpec(body.spec_url) : undefined
        const source: string | Record<string, unknown> | undefined = body.spec ?? fetched
        if (source === undefined) return yield* badRequest("VALIDATION_ERROR", "Give spec or spec_url", [{ path: ["spec"], message: "required" }])
        const imported = yield* workers.run(importTask, source, { tenantId: principal.tenantId }).pipe(
          Effect.mapError((e) => taskError(e, "INVALID_SPEC", body.spec_url !== undefined ? "spec_url" : "spec"))
        )
        // A relative server resolves against the document's own URL.
        const server = imported.server !== undefined && body.spec_url !== undefined && !URL.canParse(imported.server)
          ? new URL(imported.server, body.spec_url).toString()
          : imported.server
        return yield* store(principal, {
          scope: body.scope,
          name: body.name,
          displayName: body.display_name ?? imported.title ?? body.name,
          category: body.category,
          baseUrl: yield* checkedBase(body.base_url ?? server),
          auth: body.auth ?? imported.auth,
          functions: imported.functions
        })
      })

    return traced("Catalog", {
      list: (principal: Principal) => Effect.zipRight(requireReader(principal), Effect.map(repo.visible(principal.tenantId), (items) => ({ items }))),
      get: (principal: Principal, id: string) =>
        Effect.zipRight(requireReader(principal), repo.get(principal.tenantId, id)).pipe(
          Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("Catalog entry")), onSome: Effect.succeed }))
        ),
      create,
      importSpec
    })
  })
}) {}

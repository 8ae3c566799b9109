import { SqlClient } from "@effect/sql"
import { Effect, Either, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { ChatModel } from "../../runtime/models/ChatModel.js"
import { ModelRegistry } from "../../runtime/models/ModelRegistry.js"
import { requireBuilder, requireReader } from "../../schemas/Authorization.js"
import type { SectionProfilePatch, SectionProfileRequest } from "../../schemas/Docgen.js"
import { notFound, unprocessable } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { isRecord } from "../../schemas/Records.js"
import { defaultWorkflowConfig } from "../../schemas/Workflow.js"

const ProfileRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  instructions: Schema.String,
  keywords: Schema.Array(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
})
type ProfileRow = typeof ProfileRow.Type
const profileRows = decodeRows("docgen_section_profiles", ProfileRow)
const toProfile = ({ tenant_id: _, ...row }: ProfileRow) => row

/** Section profiles of a workspace (how a kind of section is written), and section titles classified onto them by the model. */
export class SectionProfiles extends Effect.Service<SectionProfiles>()("SectionProfiles", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const registry = yield* ModelRegistry
    const model = yield* ChatModel

    const find = (principal: Principal, id: string) =>
      sql`SELECT * FROM docgen_section_profiles WHERE tenant_id = ${principal.tenantId} AND id = ${id}`.pipe(
        profileRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Section profile")) : Effect.succeed(rows[0]))
      )
    const all = (principal: Principal) =>
      sql`SELECT * FROM docgen_section_profiles WHERE tenant_id = ${principal.tenantId} ORDER BY name, id`.pipe(profileRows, Effect.orDie)

    const classify = (principal: Principal, titles: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const profiles = yield* all(principal)
        if (profiles.length === 0) return { items: titles.map((t) => ({ section_title: t, profile_id: null, profile_name: null })) }
        const chosen = yield* registry.choose(principal.tenantId, defaultWorkflowConfig, undefined)
        if (chosen === undefined) return yield* unprocessable("MODEL_UNAVAILABLE", "No model is available to classify sections")
        const names = profiles.map((p) => p.name)
        const schema = {
          type: "object",
          required: ["items"],
          properties: {
            items: {
              type: "array",
              items: {
                type: "object",
                required: ["section_title", "profile"],
                properties: { section_title: { type: "string" }, profile: { type: ["string", "null"], enum: [...names, null] } }
              }
            }
          }
        }
        const reply = yield* model.complete({
          model: chosen.model,
          provider: chosen.provider,
          messages: [
            {
              role: "system",
              content: `Match each section title to the best section profile, or null when none fits. Profiles:\n${
                profiles.map((p) => `- ${p.name}: ${p.description} ${p.keywords.length > 0 ? `(keywords: ${p.keywords.join(", ")})` : ""}`).join("\n")
              }\nReply with JSON: {"items": [{"section_title": "...", "profile": "<profile name or null>"}]}`
            },
            { role: "user", content: JSON.stringify(titles) }
          ],
          jsonSchema: { name: "classification", schema }
        }).pipe(Effect.mapError((e) => unprocessable("MODEL_UNAVAILABLE", `The model could not classify the sections: ${e.message}`)))
        const parsed = Either.getOrUndefined(Either.try(() => JSON.parse(reply.text) as unknown))
        const answers = isRecord(parsed) && Array.isArray(parsed.items) ? parsed.items.filter(isRecord) : []
        return {
          items: titles.map((title) => {
            const answer = answers.find((a) => a.section_title === title)
            const profile = profiles.find((p) => p.name === answer?.profile)
            return { section_title: title, profile_id: profile?.id ?? null, profile_name: profile?.name ?? null }
          })
        }
      })

    return traced("SectionProfiles", {
      list: (principal: Principal) => Effect.zipRight(requireReader(principal), Effect.map(all(principal), (rows) => ({ items: rows.map(toProfile) }))),
      get: (principal: Principal, id: string) => Effect.zipRight(requireReader(principal), Effect.map(find(principal, id), toProfile)),
      create: (principal: Principal, body: typeof SectionProfileRequest.Type) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          const [row] = yield* sql`INSERT INTO docgen_section_profiles ${
            sql.insert({
              id: randomUUID(),
              tenant_id: principal.tenantId,
              name: body.name,
              description: body.description,
              instructions: body.instructions,
              keywords: [...body.keywords]
            })
          } RETURNING *`.pipe(profileRows, Effect.orDie)
          return toProfile(row)
        }),
      update: (principal: Principal, id: string, body: typeof SectionProfilePatch.Type) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          const current = yield* find(principal, id)
          const [row] = yield* sql`UPDATE docgen_section_profiles SET name = ${body.name ?? current.name}, description = ${
            body.description ?? current.description
          },
            instructions = ${body.instructions ?? current.instructions}, keywords = ${[...(body.keywords ?? current.keywords)]}::text[], updated_at = now()
            WHERE id = ${id} RETURNING *`.pipe(profileRows, Effect.orDie)
          return toProfile(row)
        }),
      remove: (principal: Principal, id: string) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          yield* find(principal, id)
          yield* sql`DELETE FROM docgen_section_profiles WHERE id = ${id}`.pipe(Effect.orDie)
        }),
      classify
    })
  })
}) {}

import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, JsonObject, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { type CatalogEntry, type FunctionDefinition, IntegrationAuth } from "../../schemas/Integration.js"

const EntryRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.NullOr(Schema.String),
  name: Schema.String,
  display_name: Schema.String,
  category: Schema.String,
  base_url: Schema.NullOr(Schema.String),
  auth: IntegrationAuth,
  created_at: Timestamp
})
export type EntryRow = typeof EntryRow.Type
const entryRows = decodeRows("catalog_entries", EntryRow)

export const FunctionRow = Schema.Struct({
  id: Schema.UUID,
  entry_id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  kind: Schema.Literal("http", "script"),
  method: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String),
  source: Schema.NullOr(Schema.String),
  input_schema: JsonObject,
  side_effects: Schema.Boolean
})
export type FunctionRow = typeof FunctionRow.Type
export const functionRows = decodeRows("catalog_functions", FunctionRow)

export const toEntry = (row: EntryRow, functions: ReadonlyArray<FunctionRow>): CatalogEntry => ({
  id: row.id,
  name: row.name,
  display_name: row.display_name,
  category: row.category,
  scope: row.tenant_id === null ? "catalog" : "custom",
  base_url: row.base_url,
  auth: row.auth,
  functions: functions.map((f) => ({
    id: f.id,
    name: f.name,
    description: f.description,
    kind: f.kind,
    ...(f.method !== null ? { method: f.method } : {}),
    ...(f.path !== null ? { path: f.path } : {}),
    input_schema: f.input_schema,
    side_effects: f.side_effects
  })),
  created_at: row.created_at
})

export interface NewEntry {
  readonly tenantId: string | null
  readonly name: string
  readonly displayName: string
  readonly category: string
  readonly baseUrl: string | null
  readonly auth: IntegrationAuth
  readonly functions: ReadonlyArray<FunctionDefinition>
  readonly createdBy: string | null
}

/** Catalog entries a workspace sees: the platform's and its own. */
export class CatalogRepo extends Effect.Service<CatalogRepo>()("CatalogRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const functionsOf = (entryIds: ReadonlyArray<string>) =>
      entryIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<FunctionRow>)
        : sql`SELECT * FROM catalog_functions WHERE entry_id IN ${sql.in([...entryIds])} ORDER BY name`.pipe(functionRows, Effect.orDie)

    const withFunctions = (rows: ReadonlyArray<EntryRow>) =>
      Effect.map(functionsOf(rows.map((r) => r.id)), (functions) => rows.map((r) => toEntry(r, functions.filter((f) => f.entry_id === r.id))))

    const visible = (tenantId: string) =>
      sql`SELECT * FROM catalog_entries WHERE tenant_id IS NULL OR tenant_id = ${tenantId} ORDER BY name, id`.pipe(
        entryRows,
        Effect.orDie,
        Effect.flatMap(withFunctions)
      )

    const get = (tenantId: string, id: string) =>
      sql`SELECT * FROM catalog_entries WHERE id = ${id} AND (tenant_id IS NULL OR tenant_id = ${tenantId})`.pipe(
        entryRows,
        Effect.orDie,
        Effect.flatMap(withFunctions),
        Effect.map((entries) => Option.fromNullable(entries[0]))
      )

    /** Inserts an entry and its functions; false when the name is taken in that scope. */
    const insert = (entry: NewEntry) =>
      sql.withTransaction(Effect.gen(function*() {
        const id = randomUUID()
        const inserted = yield* sql`INSERT INTO catalog_entries ${
          sql.insert({
            id,
            tenant_id: entry.tenantId,
            name: entry.name,
            display_name: entry.displayName,
            category: entry.category,
            base_url: entry.baseUrl,
            auth: JSON.stringify(entry.auth),
            created_by: entry.createdBy
          })
        } ON CONFLICT DO NOTHING RETURNING id`
        if (inserted.length === 0) return Option.none<string>()
        for (const f of entry.functions) {
          yield* sql`INSERT INTO catalog_functions ${
            sql.insert({
              id: randomUUID(),
              entry_id: id,
              name: f.name,
              description: f.description,
              kind: f.kind,
              method: f.kind === "http" ? f.method : null,
              path: f.kind === "http" ? f.path : null,
              source: f.kind === "script" ? f.source : null,
              input_schema: JSON.stringify(f.input_schema),
              side_effects: f.side_effects ?? (f.kind === "http" ? f.method !== "GET" : true)
            })
          }`
        }
        return Option.some(id)
      })).pipe(Effect.orDie)

    return traced("CatalogRepo", { visible, get, insert, functionsOf })
  })
}) {}

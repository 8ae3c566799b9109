import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { taskError } from "../../platform/workers/TaskErrors.js"
import { WorkerPool, type WorkerTask } from "../../platform/workers/WorkerPool.js"
import { requireBuilder, requireReader } from "../../schemas/Authorization.js"
import { type TemplateCreate, TemplateMode, type TemplatePatch } from "../../schemas/Docgen.js"
import { notFound, PayloadTooLarge, unprocessable } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { DocgenTasks } from "./DocgenTasks.js"
import type { SlideChange } from "./OfficeTasks.js"
import { slotsIn } from "./Slots.js"

export const MAX_TEMPLATE_BYTES = 20 * 1024 * 1024

const TemplateRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.String,
  name: Schema.String,
  kind: Schema.Literal("docx", "pptx", "html"),
  mode: TemplateMode,
  size_bytes: Schema.Number,
  html: Schema.String,
  text: Schema.String,
  slots: Schema.Array(Schema.String),
  slide_count: Schema.NullOr(Schema.Number),
  is_default: Schema.Boolean,
  created_at: Timestamp,
  updated_at: Timestamp
})
type TemplateRow = typeof TemplateRow.Type
const templateRows = decodeRows("docgen_templates", TemplateRow)
const columns = `id, tenant_id, name, kind, mode, size_bytes, html, text, slots, slide_count, is_default, created_at, updated_at`

const toTemplate = ({ tenant_id: _t, html: _h, text: _x, ...row }: TemplateRow) => row

/**
 * Templates of a workspace: DOCX and PPTX uploads (recognised by their content), or HTML. Their
 * HTML rendering (mammoth for DOCX, each slide's text for PPTX), `{{slots}}`, a PNG thumbnail, a
 * workspace default, and for presentations their slides: listed, reordered, edited, deleted.
 */
export class Templates extends Effect.Service<Templates>()("Templates", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const workers = yield* WorkerPool
    const onWorker = <I, O>(principal: Principal, task: WorkerTask<I, O>, input: I) =>
      workers.run(task, input, { tenantId: principal.tenantId }).pipe(Effect.mapError((e) => taskError(e, "UNSUPPORTED_TEMPLATE", "file")))

    const find = (principal: Principal, id: string) =>
      sql`SELECT ${sql.unsafe(columns)} FROM docgen_templates WHERE tenant_id = ${principal.tenantId} AND id = ${id}`.pipe(
        templateRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Template")) : Effect.succeed(rows[0]))
      )

    const file = (id: string) =>
      sql`SELECT file FROM docgen_templates WHERE id = ${id}`.pipe(
        decodeRows("docgen_templates", Schema.Struct({ file: Schema.NullOr(Schema.Uint8ArrayFromSelf) }))
      ).pipe(Effect.orDie, Effect.map((rows) => rows[0]?.file ?? null))

    const presentation = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        const row = yield* find(principal, id)
        const bytes = yield* file(id)
        if (row.kind !== "pptx" || bytes === null) return yield* unprocessable("NOT_A_PRESENTATION", "Slides belong to PPTX templates")
        return { row, bytes }
      })

    /** Stores a new file for a template and everything derived from it (read on the worker pool). */
    const storeFile = (principal: Principal, id: string, bytes: Uint8Array) =>
      Effect.gen(function*() {
        const derived = yield* onWorker(principal, DocgenTasks.readTemplate, { bytes })
        const [row] = yield* sql`UPDATE docgen_templates SET file = ${Buffer.from(bytes)}, size_bytes = ${bytes.byteLength}, html = ${derived.html},
          text = ${derived.text}, slots = ${[...derived.slots]}::text[], slide_count = ${derived.slideCount}, updated_at = now()
          WHERE id = ${id} RETURNING ${sql.unsafe(columns)}`.pipe(templateRows, Effect.orDie)
        return row
      })

    const upload = (principal: Principal, input: { name: string | undefined; mode: string | undefined; filename: string; bytes: Uint8Array }) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        if (input.bytes.byteLength > MAX_TEMPLATE_BYTES) {
          return yield* new PayloadTooLarge({ code: "TEMPLATE_TOO_LARGE", message: "Templates are limited to 20 MiB" })
        }
        const derived = yield* onWorker(principal, DocgenTasks.readTemplate, { bytes: input.bytes })
        const mode = Schema.decodeUnknownOption(TemplateMode)(input.mode)
        const [row] = yield* sql`INSERT INTO docgen_templates ${
          sql.insert({
            id: randomUUID(),
            tenant_id: principal.tenantId,
            name: input.name ?? input.filename.replace(/\.[^.]+$/, ""),
            kind: derived.kind,
            mode: mode._tag === "Some" ? mode.value : derived.kind === "pptx" ? "slot_fill" : "html_rewrite",
            file: Buffer.from(input.bytes),
            size_bytes: input.bytes.byteLength,
            html: derived.html,
            text: derived.text,
            slots: [...derived.slots],
            slide_count: derived.slideCount,
            created_by: principal.userId
          })
        } RETURNING ${sql.unsafe(columns)}`.pipe(templateRows, Effect.orDie)
        return toTemplate(row)
      })

    const create = (principal: Principal, body: typeof TemplateCreate.Type) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const html = yield* onWorker(principal, DocgenTasks.sanitize, { html: body.html })
        const [row] = yield* sql`INSERT INTO docgen_templates ${
          sql.insert({
            id: randomUUID(),
            tenant_id: principal.tenantId,
            name: body.name,
            kind: "html",
            mode: body.mode,
            size_bytes: Buffer.byteLength(html),
            html,
            text: html.replace(/<[^>]*>/g, " "),
            slots: slotsIn(html),
            created_by: principal.userId
          })
        } RETURNING ${sql.unsafe(columns)}`.pipe(templateRows, Effect.orDie)
        return toTemplate(row)
      })

    const slideList = (principal: Principal, bytes: Uint8Array) => Effect.map(onWorker(principal, DocgenTasks.slides, { bytes }), (items) => ({ items }))

    /** The presentation with one change, stored with everything derived from it; its slides after. */
    const rewrite = (principal: Principal, id: string, bytes: Uint8Array, change: SlideChange) =>
      Effect.gen(function*() {
        const next = yield* onWorker(principal, DocgenTasks.rewriteSlides, { bytes, change })
        yield* storeFile(principal, id, next)
        return yield* slideList(principal, next)
      })

    const slideAt = (principal: Principal, id: string, index: number) =>
      Effect.gen(function*() {
        const { bytes } = yield* presentation(principal, id)
        const { items } = yield* slideList(principal, bytes)
        const slide = items[index - 1]
        return slide === undefined ? yield* notFound("Slide") : { bytes, slide, count: items.length }
      })

    return traced("Templates", {
      list: (principal: Principal) =>
        Effect.zipRight(
          requireReader(principal),
          sql`SELECT ${sql.unsafe(columns)} FROM docgen_templates WHERE tenant_id = ${principal.tenantId}
          ORDER BY is_default DESC, name, id`.pipe(templateRows, Effect.orDie)
        ).pipe(Effect.map((rows) => ({ items: rows.map(toTemplate) }))),
      get: (principal: Principal, id: string) => Effect.zipRight(requireReader(principal), Effect.map(find(principal, id), toTemplate)),
      create,
      upload,
      update: (principal: Principal, id: string, body: typeof TemplatePatch.Type) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          const current = yield* find(principal, id)
          const [row] = yield* sql`UPDATE docgen_templates SET name = ${body.name ?? current.name}, mode = ${body.mode ?? current.mode}, updated_at = now()
            WHERE id = ${id} RETURNING ${sql.unsafe(columns)}`.pipe(templateRows, Effect.orDie)
          return toTemplate(row)
        }),
      remove: (principal: Principal, id: string) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          yield* find(principal, id)
          yield* sql`DELETE FROM docgen_templates WHERE id = ${id}`.pipe(Effect.orDie)
        }),
      /** The rendering as a page, sanitised again as it is served (templates stored before sanitising existed included). */
      html: (principal: Principal, id: string) =>
        Effect.zipRight(requireReader(principal), find(principal, id)).pipe(
          Effect.flatMap((row) => Effect.map(onWorker(principal, DocgenTasks.sanitize, { html: row.html }), (html) => ({ row, html }))),
          Effect.map(({ row, html }) =>
            `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${
              row.name.replace(/&/g, "&amp;").replace(/</g, "&lt;")
            }</title></head><body>\n${html}\n</body></html>\n`
          )
        ),
      thumbnail: (principal: Principal, id: string) =>
        Effect.zipRight(requireReader(principal), find(principal, id)).pipe(
          Effect.flatMap((row) => onWorker(principal, DocgenTasks.thumbnail, { name: row.name, kind: row.kind, text: row.text.slice(0, 4096) }))
        ),
      setDefault: (principal: Principal, id: string) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          yield* find(principal, id)
          return yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`UPDATE docgen_templates SET is_default = false WHERE tenant_id = ${principal.tenantId} AND is_default`
            const [row] = yield* sql`UPDATE docgen_templates SET is_default = true, updated_at = now() WHERE id = ${id} RETURNING ${sql.unsafe(columns)}`.pipe(
              templateRows
            )
            return toTemplate(row)
          })).pipe(Effect.orDie)
        }),
      duplicate: (principal: Principal, id: string) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          yield* find(principal, id)
          const [row] = yield* sql`INSERT INTO docgen_templates (id, tenant_id, name, kind, mode, file, size_bytes, html, text, slots, slide_count, created_by)
            SELECT ${randomUUID()}, tenant_id, name || ' (Copy)', kind, mode, file, size_bytes, html, text, slots, slide_count, ${principal.userId}
            FROM docgen_templates WHERE id = ${id} RETURNING ${sql.unsafe(columns)}`.pipe(templateRows, Effect.orDie)
          return toTemplate(row)
        }),
      reextract: (principal: Principal, id: string) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          const row = yield* find(principal, id)
          const bytes = yield* file(id)
          if (row.kind === "html" || bytes === null) return toTemplate(row)
          return toTemplate(yield* storeFile(principal, id, bytes))
        }),
      slides: (principal: Principal, id: string) =>
        Effect.zipRight(requireReader(principal), Effect.flatMap(presentation(principal, id), ({ bytes }) => slideList(principal, bytes))),
      slide: (principal: Principal, id: string, index: number) => Effect.map(slideAt(principal, id, index), (s) => s.slide),
      reorder: (principal: Principal, id: string, order: ReadonlyArray<number>) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          const { bytes } = yield* presentation(principal, id)
          const { items } = yield* slideList(principal, bytes)
          const sorted = [...order].sort((a, b) => a - b)
          if (sorted.length !== items.length || sorted.some((n, i) => n !== i + 1)) {
            return yield* unprocessable("SLIDE_ORDER_INVALID", `List each of the ${items.length} slides' indexes once`)
          }
          return yield* rewrite(principal, id, bytes, { op: "reorder", order })
        }),
      edit: (principal: Principal, id: string, index: number, texts: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          const { bytes } = yield* slideAt(principal, id, index)
          return (yield* rewrite(principal, id, bytes, { op: "edit", index, texts })).items[index - 1]
        }),
      removeSlide: (principal: Principal, id: string, index: number) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          const { bytes } = yield* slideAt(principal, id, index)
          yield* rewrite(principal, id, bytes, { op: "delete", index })
        })
    })
  })
}) {}

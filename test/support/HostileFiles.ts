import { Effect } from "effect"
import { strToU8, zipSync } from "fflate"
import { monitorEventLoopDelay } from "node:perf_hooks"
import type { Json } from "./Http.js"
import { TestPlatform } from "./TestPlatform.js"

const CONTENT_TYPES =
  `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`

/** A DOCX of `xmlBytes` of repeated paragraphs, compressed as hard as zip goes (a 25 KiB file for 8 MiB). */
export const docxBomb = (xmlBytes: number) => {
  const paragraph = "<w:p><w:r><w:t>x</w:t></w:r></w:p>"
  const body = paragraph.repeat(Math.ceil(xmlBytes / paragraph.length))
  return zipSync({
    "[Content_Types].xml": strToU8(CONTENT_TYPES),
    "word/document.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`
    )
  }, { level: 9 })
}

/** A PPTX whose slide list names its one slide `entries` times. */
export const pptxSlideBomb = (entries: number) =>
  zipSync({
    "[Content_Types].xml": strToU8(CONTENT_TYPES),
    "ppt/presentation.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:sldIdLst>${
        Array.from({ length: entries }, (_, i) => `<p:sldId id="${256 + i}" r:id="rId2"/>`).join("")
      }</p:sldIdLst></p:presentation>`
    ),
    "ppt/_rels/presentation.xml.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Target="slides/slide1.xml"/></Relationships>`
    ),
    "ppt/slides/slide1.xml": strToU8(`<p:sld xmlns:p="p" xmlns:a="a"><a:t>${"word ".repeat(20_000)}</a:t></p:sld>`)
  })

/** A zip of `count` empty entries. */
export const manyEntries = (count: number) =>
  zipSync({ "word/document.xml": strToU8("<w:document/>"), ...Object.fromEntries(Array.from({ length: count }, (_, i) => [`x/${i}.xml`, new Uint8Array()])) })

/** OpenAPI schemas S1..Sn, each with two properties that refer to the next: 2^n when dereferenced. */
export const openApiRefBomb = (levels: number) => {
  const schemas: Record<string, unknown> = {}
  for (let i = 1; i <= levels; i++) {
    schemas[`S${i}`] = i === levels
      ? { type: "string" }
      : { type: "object", properties: { a: { $ref: `#/components/schemas/S${i + 1}` }, b: { $ref: `#/components/schemas/S${i + 1}` } } }
  }
  return openApi({ $ref: "#/components/schemas/S1" }, schemas)
}

/** An OpenAPI document whose body schema is a tree: a node holds nodes (a circular `$ref`). */
export const openApiCircular = () =>
  openApi({ $ref: "#/components/schemas/Node" }, {
    Node: {
      type: "object",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
      required: ["name"]
    }
  })

const openApi = (body: unknown, schemas: Record<string, unknown>) => ({
  openapi: "3.0.3",
  info: { title: "hostile", version: "1" },
  servers: [{ url: "https://api.example.com" }],
  paths: {
    "/things": {
      post: { operationId: "createThing", requestBody: { content: { "application/json": { schema: body } } }, responses: { 200: { description: "ok" } } }
    }
  },
  components: { schemas }
})

/** A multipart upload of `bytes` as `file` (with these fields) to the suite's server. */
export const upload = (path: string, token: string, bytes: Uint8Array, filename: string, fields: Record<string, string> = {}) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(async () => {
      const form = new FormData()
      for (const [k, v] of Object.entries(fields)) form.append(k, v)
      form.append("file", new Blob([bytes]), filename)
      const res = await fetch(`${platform.baseUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form })
      const text = await res.text()
      return { status: res.status, body: (text.startsWith("{") ? JSON.parse(text) : undefined) as Record<string, Json> | undefined, text }
    }))

/**
 * Runs `effect` while sampling this process's event-loop delay (it serves the platform under
 * test): its result and the longest delay seen, in milliseconds.
 */
export const withLoopLag = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const histogram = monitorEventLoopDelay({ resolution: 10 })
      histogram.enable()
      return histogram
    }),
    (histogram) => Effect.map(effect, (result) => ({ result, maxLagMs: histogram.max / 1e6 })),
    (histogram) => Effect.sync(() => histogram.disable())
  )

/** A DOCX whose one paragraph is a hyperlink to `href` (what mammoth turns into `<a href>`). */
export const docxWithLink = (href: string, text = "click me") =>
  zipSync({
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`
    ),
    "_rels/.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`
    ),
    "word/_rels/document.xml.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId5" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="${href}" TargetMode="External"/></Relationships>`
    ),
    "word/document.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body><w:p><w:hyperlink r:id="rId5"><w:r><w:t>${text}</w:t></w:r></w:hyperlink></w:p><w:p><w:r><w:t>Dear {{name}}</w:t></w:r></w:p></w:body></w:document>`
    )
  })

import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { canonicalJson } from "../../platform/Idempotency.js"
import { LimitOffsetParams, pageOf, PageParams } from "../../schemas/Pagination.js"

describe("pagination", () => {
  const decode = Schema.decodeUnknownEither(PageParams)
  it("defaults page 1 and page_size 20, caps page_size at 100, refuses page 0", () => {
    assert.deepStrictEqual(decode({}), Either.right({ page: 1, page_size: 20 }))
    assert.deepStrictEqual(decode({ page: "3", page_size: "500" }), Either.right({ page: 3, page_size: 100 }))
    assert.isTrue(Either.isLeft(decode({ page: "0" })))
    assert.isTrue(Either.isLeft(decode({ page_size: "abc" })))
  })

  it("the envelope says whether more pages follow", () => {
    assert.deepStrictEqual(pageOf({ page: 1, page_size: 2 }, ["a", "b"], 3), {
      items: ["a", "b"],
      total: 3,
      page: 1,
      page_size: 2,
      has_more: true
    })
    assert.isFalse(pageOf({ page: 2, page_size: 2 }, ["c"], 3).has_more)
  })

  it("the limit/offset form", () => {
    const decodeLo = Schema.decodeUnknownEither(LimitOffsetParams)
    assert.deepStrictEqual(decodeLo({}), Either.right({ limit: 20, offset: 0 }))
    assert.deepStrictEqual(decodeLo({ limit: "1000", offset: "5" }), Either.right({ limit: 100, offset: 5 }))
    assert.isTrue(Either.isLeft(decodeLo({ offset: "-1" })))
  })
})

describe("idempotency request hashing", () => {
  it("equal bodies in any key order hash the same", () => {
    assert.strictEqual(canonicalJson({ b: 1, a: { d: [1, 2], c: null } }), canonicalJson({ a: { c: null, d: [1, 2] }, b: 1 }))
    assert.notStrictEqual(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }))
  })
})

describe("source files", () => {
  it("no source file of the platform passes 400 lines (split along its seams instead)", async () => {
    const { readdir, readFile } = await import("node:fs/promises")
    const path = await import("node:path")
    const root = path.join(import.meta.dirname, "..", "..")
    const files = (await Promise.all(
      ["schemas", "platform", "runtime", "otel", "services"].map(async (dir) =>
        (await readdir(path.join(root, dir), { recursive: true })).filter((f) => /\.(ts|mjs)$/.test(f)).map((f) => path.join(root, dir, f))
      )
    )).flat()
    const long: Array<string> = []
    for (const file of files) {
      const lines = (await readFile(file, "utf8")).split("\n").length
      if (lines > 400) long.push(`${path.relative(root, file)}: ${lines}`)
    }
    assert.isAbove(files.length, 300)
    assert.deepStrictEqual(long, [])
  })

  it("handlers reach their caller one way: asCaller (schemas/Principal.ts), never the CurrentPrincipal tag itself", async () => {
    const { readdir, readFile } = await import("node:fs/promises")
    const path = await import("node:path")
    const root = path.join(import.meta.dirname, "..", "..", "services")
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith(".ts"))
    const offenders: Array<string> = []
    for (const file of files) {
      const text = await readFile(path.join(root, file), "utf8")
      if (/yield\* CurrentPrincipal|Effect\.(flatMap|map|andThen)\(CurrentPrincipal|= CurrentPrincipal\b/.test(text)) offenders.push(file)
    }
    assert.isAbove(files.length, 100)
    assert.deepStrictEqual(offenders, [])
  })

  it("every service operation has its span: services return their operations through traced (platform/Traced.ts)", async () => {
    const { readdir, readFile } = await import("node:fs/promises")
    const path = await import("node:path")
    const root = path.join(import.meta.dirname, "..", "..", "services")
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith(".ts"))
    const services: Array<string> = []
    const untraced: Array<string> = []
    for (const file of files) {
      const text = await readFile(path.join(root, file), "utf8")
      if (!/Effect\.Service<\w+>\(\)/.test(text)) continue
      services.push(file)
      if (!/^    return traced\("\w+", \{/m.test(text)) untraced.push(file)
    }
    assert.isAbove(services.length, 70)
    assert.deepStrictEqual(untraced, [])
  })

  it("rows are decoded by schema (platform/Rows.ts decodeRows): a sql<T> type assertion stands only on a hot path named in the comment above it", async () => {
    const { readdir, readFile } = await import("node:fs/promises")
    const path = await import("node:path")
    const root = path.join(import.meta.dirname, "..", "..")
    const asserted: Array<string> = []
    for (const dir of ["schemas", "platform", "runtime", "otel", "services"]) {
      for (const file of (await readdir(path.join(root, dir), { recursive: true })).filter((f) => f.endsWith(".ts"))) {
        const lines = (await readFile(path.join(root, dir, file), "utf8")).split("\n")
        lines.forEach((line, i) => {
          if (/\bsql<[^>]/.test(line) && !/Hot path/.test(lines[i - 1] ?? "")) asserted.push(`${dir}/${file}:${i + 1}`)
        })
      }
    }
    assert.deepStrictEqual(asserted, [])
  })
})

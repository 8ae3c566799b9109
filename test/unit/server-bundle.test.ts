import { OpenApi } from "@effect/platform"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { PlatformApi } from "../../schemas/Api.js"
import { asciiOnly, serverEntry } from "../../scripts/build-server.mjs"

// Evaluates a module body's source and returns what it exports as `out`.
const run = (source: string): unknown => new Function(`${source}; return out`)()

describe("the platform's bundle", () => {
  it("escapes characters outside ASCII without changing what the code means", () => {
    const source = [
      "const quotes = /^[\"'\u201c\u201d]+|[\u201c\u201d.]+$/g",
      "// a comment \u2014 with a dash",
      "const \u00e9t\u00e9 = 'caf\u00e9 \ud83d\ude00'",
      "const escaped = '\\\u201c', slash = '\\\\\u201c', three = '\\\\\\\u201c'",
      "const emoji = /\ud83d\ude00/u.test('\ud83d\ude00')",
      "const tpl = `x\u00b5y`",
      "const out = [ '\u201chi\u201d.'.replace(quotes, ''), \u00e9t\u00e9, escaped, slash, three, emoji, tpl ]"
    ].join("\n")
    const escaped = asciiOnly(source)
    expect(/[^\x00-\x7f]/.test(escaped)).toBe(false)
    expect(run(escaped)).toEqual(run(source))
    expect(run(escaped)).toEqual(["hi", "caf\u00e9 \ud83d\ude00", "\u201c", "\\\u201c", "\\\u201c", true, "x\u00b5y"])
  })

  it("is ASCII (the test setup builds it)", () => {
    expect(/[^\x00-\x7f]/.test(readFileSync(serverEntry, "utf8"))).toBe(false)
  })

  it("loads the packages only some deployments use when they are first used, not at every start", () => {
    const source = readFileSync(serverEntry, "utf8")
    const imported = [...source.matchAll(/^import\b[^;]*?from "([^"]+)";/gm)].map((m) => m[1])
    expect(imported).toContain("undici")
    for (const lazy of ["@modelcontextprotocol/sdk", "nodemailer", "smtp-server", "sanitize-html", "parse5", "fast-check"]) {
      expect(imported.filter((name) => name === lazy || name.startsWith(`${lazy}/`))).toEqual([])
    }
    expect(source).toContain("import(\"nodemailer\")")
  })

  it("carries the OpenAPI document the platform's schemas derive, which a process started from it serves", () => {
    const built: unknown = JSON.parse(readFileSync(path.join(path.dirname(serverEntry), "openapi-document.json"), "utf8"))
    expect(built).toEqual(JSON.parse(JSON.stringify(OpenApi.fromApi(PlatformApi))))
  })
})

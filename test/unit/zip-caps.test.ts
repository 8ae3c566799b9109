import { assert, describe, it } from "@effect/vitest"
import { strToU8, unzipSync, zipSync } from "fflate"
import { checkedZip } from "../../platform/workers/ZipCaps.js"

const NOT_ZIP = { code: "UNSUPPORTED_TEMPLATE", message: "not a zip" }

const refusal = (f: () => unknown) => {
  try {
    f()
  } catch (error) {
    return error as { name: string; code: string; message: string }
  }
  return assert.fail("expected a refusal")
}

describe("zip archives inflated within caps", () => {
  it("an entry that declares fewer bytes than it inflates to is cut at its declared size", () => {
    const honest = Buffer.from(zipSync({ "a.xml": strToU8("a".repeat(2_000_000)) }, { level: 6 }))
    const central = honest.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]))
    honest.writeUInt32LE(1000, central + 24)
    honest.writeUInt32LE(1000, 22)
    const repacked = checkedZip(new Uint8Array(honest), NOT_ZIP)
    assert.strictEqual(unzipSync(repacked)["a.xml"].byteLength, 1000)
  })

  it("refuses bombs by ratio, size and entries, and what is not a zip, each with its reason", () => {
    const bomb = zipSync({ "word/document.xml": strToU8("x".repeat(4 * 1024 * 1024)) }, { level: 9 })
    assert.deepInclude(refusal(() => checkedZip(bomb, NOT_ZIP)), { name: "TaskRefusal", code: "INPUT_LIMIT_EXCEEDED" })
    const big = zipSync({ a: new Uint8Array(600_000).map((_, i) => (i * 7919) % 251) }, { level: 0 })
    assert.match(refusal(() => checkedZip(big, NOT_ZIP, { maxEntries: 10, maxInflatedBytes: 500_000, minRatio: 0.01 })).message, /inflates to more than/)
    const many = zipSync(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}`, new Uint8Array(1)])))
    assert.match(refusal(() => checkedZip(many, NOT_ZIP, { maxEntries: 10, maxInflatedBytes: 1e9, minRatio: 0.01 })).message, /more than 10 entries/)
    assert.deepInclude(refusal(() => checkedZip(strToU8("not a zip at all"), NOT_ZIP)), { code: "UNSUPPORTED_TEMPLATE" })
  })

  it("what passes is stored uncompressed, entry for entry", () => {
    const files = { "word/document.xml": strToU8("<w:document/>"), "docProps/app.xml": strToU8("<x/>") }
    const repacked = checkedZip(zipSync(files, { level: 9 }), NOT_ZIP)
    assert.deepStrictEqual(Object.keys(unzipSync(repacked)).sort(), Object.keys(files).sort())
  })
})

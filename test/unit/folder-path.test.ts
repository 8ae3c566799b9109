import { assert, describe, it } from "@effect/vitest"
import { canonicalFolder, folderMatches } from "../../platform/FolderPath.js"

describe("folder paths", () => {
  it("one canonical form", () => {
    for (const form of ["a/b", "/a/b", "a/b/", "/a//b/", " a/b "]) assert.strictEqual(canonicalFolder(form), "/a/b", form)
    for (const root of ["", "/", "//"]) assert.strictEqual(canonicalFolder(root), "/")
  })

  it("a prefix ending in / is the folder and what is under it; otherwise a plain prefix", () => {
    assert.isTrue(folderMatches("a/", "/a"))
    assert.isTrue(folderMatches("a/", "/a/b"))
    assert.isFalse(folderMatches("a/", "/ab"))
    assert.isTrue(folderMatches("a", "/ab"))
    assert.isTrue(folderMatches("/", "/anything"))
    assert.isTrue(folderMatches("a/b", "a/b/"))
  })
})

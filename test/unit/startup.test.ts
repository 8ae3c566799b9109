import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { parseModelEntry } from "../../platform/Config.js"
import { explainPostgresFailure } from "../../platform/embedded/Failures.js"

const context = { pgdata: "/data/pg", port: 5433, account: "postgres" }

describe("startup", () => {
  it("PostgreSQL's own failures become one line with the cause and the fix", () => {
    const cases: ReadonlyArray<[string, string]> = [
      ["FATAL:  could not write to file \"pg_wal/xlogtemp.12\": No space left on device", "no disk space left"],
      ["LOG:  could not bind IPv4 address \"127.0.0.1\": Address already in use", "Port 5433"],
      ["initdb: error: could not access directory \"/data/pg\": Permission denied", "permission denied"],
      ["FATAL:  lock file \"postmaster.pid\" already exists", "Another PostgreSQL"],
      ["FATAL:  database files are incompatible with server", "another PostgreSQL version"],
      ["FATAL:  something odd happened", "something odd happened"]
    ]
    for (const [output, expected] of cases) {
      const line = explainPostgresFailure(output, context)
      assert.include(line, expected, output)
      assert.notInclude(line, "\n")
    }
  })

  it("LLM_MODELS entries: name or name:cost:speed, names may hold colons", () => {
    assert.deepStrictEqual(parseModelEntry("gpt-4o"), Either.right({ id: "gpt-4o", cost: 2, speed: 2 }))
    assert.deepStrictEqual(parseModelEntry("llama3.1:8b"), Either.right({ id: "llama3.1:8b", cost: 2, speed: 2 }))
    assert.deepStrictEqual(parseModelEntry("llama3.1:8b:1:3"), Either.right({ id: "llama3.1:8b", cost: 1, speed: 3 }))
    assert.isTrue(Either.isLeft(parseModelEntry("m:9:1")))
    assert.isTrue(Either.isLeft(parseModelEntry("two words")))
  })
})

import { assert, describe, it } from "@effect/vitest"
import { retryAfterMs } from "../../runtime/models/ProviderGate.js"

describe("Retry-After", () => {
  it("reads seconds and HTTP dates; ignores what it cannot read", () => {
    const now = Date.parse("2026-11-27T10:00:00Z")
    assert.strictEqual(retryAfterMs("2", now), 2000)
    assert.strictEqual(retryAfterMs("0.5", now), 500)
    assert.strictEqual(retryAfterMs(["3"], now), 3000)
    assert.strictEqual(retryAfterMs("Fri, 27 Nov 2026 10:00:05 GMT", now), 5000)
    assert.strictEqual(retryAfterMs("Fri, 27 Nov 2026 09:00:00 GMT", now), 0)
    assert.isUndefined(retryAfterMs(undefined, now))
    assert.isUndefined(retryAfterMs("", now))
    assert.isUndefined(retryAfterMs("soon", now))
    assert.isUndefined(retryAfterMs("-1", now))
  })
})

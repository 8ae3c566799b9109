import { assert, describe, it } from "@effect/vitest"
import { vi } from "vitest"
import { makeWallClock } from "../../otel/WallClock.js"

const millis = (nanos: bigint) => Number(nanos / 1_000_000n)

describe("the span clock", () => {
  it("reads the wall clock with the monotonic clock's resolution, and follows the wall clock when the two drift apart", () => {
    const clock = makeWallClock()
    const first = clock.unsafeCurrentTimeNanos()
    assert.isAtMost(Math.abs(millis(first) - Date.now()), 2)
    assert.isTrue(clock.unsafeCurrentTimeNanos() >= first)

    // NTP has moved the wall clock 5 s away from the monotonic one (a process up for weeks).
    const real = Date.now.bind(Date)
    const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + 5_000)
    try {
      assert.isAtMost(Math.abs(millis(clock.unsafeCurrentTimeNanos()) - Date.now()), 2)
    } finally {
      spy.mockRestore()
    }
  })
})

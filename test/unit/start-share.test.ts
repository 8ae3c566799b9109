import { assert, describe, it } from "@effect/vitest"
import { defaultShareSettings, makeStartShare } from "../../services/workflow/StartShare.js"

// Fair shares of run starts under overload (issue 37, point 2), on a clock of our own: the rules
// the run endpoints apply (their 429s through HTTP: test/http/start-shares.test.ts).
const LATE = 5
const settings = defaultShareSettings(LATE)

/** `n` starts of `tenant` spread over `ms` from `from`; how many were let through. */
const burst = (share: ReturnType<typeof makeStartShare>, tenant: string, n: number, from: number, ms: number) => {
  let allowed = 0
  for (let i = 0; i < n; i++) if (share.admit(tenant, from + Math.floor((i * ms) / n)).allowed) allowed++
  return allowed
}

describe("fair shares of run starts", () => {
  it("a tenant alone is never paced, however late the loop", () => {
    const share = makeStartShare(settings)
    assert.strictEqual(burst(share, "a", 300, 0, 1000), 300)
    for (let t = 1000; t <= 3000; t += 100) share.tick(50, t)
    assert.isUndefined(share.rate())
    assert.isFalse(share.contended(), "the loop's lateness is not even watched")
    assert.strictEqual(burst(share, "a", 300, 3000, 1000), 300)
  })

  it("on time, two busy tenants are not paced", () => {
    const share = makeStartShare(settings)
    burst(share, "a", 300, 0, 1000)
    burst(share, "b", 300, 0, 1000)
    for (let t = 1000; t <= 3000; t += 100) share.tick(LATE - 1, t)
    assert.isUndefined(share.rate())
    assert.isTrue(share.contended())
  })

  it("late with two tenants: the flooding one is held to half its last second, then less at each late tick; the quiet one is never refused", () => {
    const share = makeStartShare(settings)
    assert.strictEqual(burst(share, "a", 200, 0, 1000), 200)
    share.admit("b", 500)
    share.tick(LATE + 1, 1100)
    assert.strictEqual(share.rate(), 100)
    // Paced at 100 a second with 100 ms of burst: about 10 at once, then one every 10 ms.
    const at = 1100
    const allowed = burst(share, "a", 100, at, 10)
    assert.isAtLeast(allowed, 10)
    assert.isAtMost(allowed, 12)
    const more = [1, 2, 3].map(() => share.admit("a", at + 10))
    const refused = more[2]
    assert.isFalse(refused.allowed, "ahead of its pace by more than the burst")
    assert.strictEqual(refused.retryAfterSeconds, 1)
    assert.isTrue(share.admit("b", at + 10).allowed, "b asks far less than the shared rate")
    share.tick(LATE + 1, 1200)
    assert.closeTo(share.rate()!, 70, 1e-9)
    for (let t = 1300; t <= 3000; t += 100) {
      share.tick(LATE + 1, t)
      if (t % 1000 === 0) assert.isTrue(share.admit("b", t).allowed)
    }
    assert.strictEqual(share.rate(), settings.minRate, "never below the floor")
    // b, at one start a second, is under even the floor.
    for (let t = 4000; t < 9000; t += 1000) assert.isTrue(share.admit("b", t).allowed)
  })

  it("on time again, the rate climbs a step a tick (and holds while the loop is nearly late); it ends once the busiest asks for under half of it for a while", () => {
    const share = makeStartShare(settings)
    burst(share, "a", 40, 0, 1000)
    share.admit("b", 0)
    share.tick(LATE + 1, 1000)
    assert.strictEqual(share.rate(), 20)
    share.tick(0, 1100)
    share.tick(0, 1200)
    assert.strictEqual(share.rate(), 21)
    // Nearly late (over half the limit, not over it): the rate holds instead of probing further.
    share.tick(LATE - 1, 1250)
    share.tick(settings.holdMs + 0.1, 1260)
    assert.strictEqual(share.rate(), 21)
    share.tick(settings.holdMs, 1270)
    assert.strictEqual(share.rate(), 21.5)
    // a keeps asking at 20 a second: still paced.
    for (let t = 1300; t < 4000; t += 100) {
      burst(share, "a", 2, t, 100)
      share.admit("b", t)
      share.tick(0, t + 99)
    }
    assert.isDefined(share.rate())
    // a stops; b goes on. After releaseMs with the busiest under half the rate, no more pacing.
    let t = 4000
    for (; t < 4000 + settings.releaseMs + 2000; t += 100) {
      if (t % 1000 === 0) share.admit("b", t)
      share.tick(0, t)
    }
    assert.isUndefined(share.rate())
  })

  it("a tenant quiet for longer than activeMs no longer counts: the one left is alone again", () => {
    const share = makeStartShare(settings)
    share.admit("b", 0)
    burst(share, "a", 100, 0, 1000)
    share.tick(LATE + 1, 1000)
    assert.isDefined(share.rate())
    burst(share, "a", 100, 1000, 1000)
    share.tick(LATE + 1, settings.activeMs + 500)
    assert.isUndefined(share.rate())
    assert.strictEqual(burst(share, "a", 100, settings.activeMs + 500, 100), 100)
  })
})

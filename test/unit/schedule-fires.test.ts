import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { parseCron } from "../../platform/Cron.js"
import { CATCH_UP_MS, fireTimesDue } from "../../services/workflow/schedules/ScheduleFiring.js"

const cron = (pattern: string, zone = "UTC") => Either.getOrThrow(parseCron(pattern, zone))
const at = (iso: string) => new Date(iso)

describe("fire times", () => {
  it("a due fire runs once; nothing before its time", () => {
    const everyMinute = cron("* * * * *")
    assert.deepStrictEqual(fireTimesDue(everyMinute, at("2026-01-01T10:00:00Z"), at("2026-01-01T10:00:00.020Z")), [at("2026-01-01T10:00:00Z")])
    assert.deepStrictEqual(fireTimesDue(everyMinute, at("2026-01-01T10:01:00Z"), at("2026-01-01T10:00:59Z")), [])
  })

  it("a process running late fires every time of the catch-up window", () => {
    const everySecond = cron("* * * * * *")
    const times = fireTimesDue(everySecond, at("2026-01-01T10:00:01Z"), at("2026-01-01T10:00:03.500Z"))
    assert.deepStrictEqual(times, [at("2026-01-01T10:00:01Z"), at("2026-01-01T10:00:02Z"), at("2026-01-01T10:00:03Z")])
  })

  it("after downtime only the fires of the last CATCH_UP_MS run, or else the most recent one", () => {
    const everySecond = cron("* * * * * *")
    const now = at("2026-01-01T11:00:00.500Z")
    const times = fireTimesDue(everySecond, at("2026-01-01T10:00:00Z"), now)
    assert.strictEqual(times.length, CATCH_UP_MS / 1000)
    assert.deepStrictEqual(times.at(-1), at("2026-01-01T11:00:00Z"))
    const hourly = cron("0 * * * *")
    assert.deepStrictEqual(fireTimesDue(hourly, at("2026-01-01T03:00:00Z"), at("2026-01-01T09:30:00Z")), [at("2026-01-01T09:00:00Z")])
  })

  it("reads the cron in its time zone, daylight saving included", () => {
    const nineInBerlin = cron("0 9 * * *", "Europe/Berlin")
    assert.deepStrictEqual(nineInBerlin.nextAfter(at("2026-01-15T00:00:00Z")), at("2026-01-15T08:00:00Z"))
    assert.deepStrictEqual(nineInBerlin.nextAfter(at("2026-07-15T00:00:00Z")), at("2026-07-15T07:00:00Z"))
    assert.isTrue(Either.isLeft(parseCron("0 9 * * *", "Not/AZone")))
    assert.isTrue(Either.isLeft(parseCron("0 9 * *", "UTC")))
  })
})

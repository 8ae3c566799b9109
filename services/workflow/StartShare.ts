import { paced } from "../../platform/RateLimiter.js"

/**
 * Fair shares of run starts while a process is overloaded (max-min fairness, adapted like TCP's
 * congestion window): when the event loop runs late and more than one tenant is starting runs,
 * every tenant's starts are paced at one shared rate. A tenant below it is never refused (a
 * tenant starting a run a second beside a flood goes on as if alone); one above it is held to it.
 * The rate falls by a fixed factor at each tick the loop is late (from half the busiest tenant's
 * last second), holds while the loop is nearly late, and climbs by a small fixed step at each tick
 * it is well on time (a larger step, or climbing up to the limit, overshoots, and the quiet
 * tenant's runs meet the overshoot); once the busiest tenant asks for under half of it for
 * `releaseMs` the pacing ends. A tenant alone is never paced: an overload of its own making slows
 * only its own runs, and refusing it would only cost throughput.
 */
export interface ShareSettings {
  /** The loop's mean lateness (ms) over a tick above which the process is overloaded. */
  readonly lateMs: number
  /** The lateness (ms) above which the rate no longer climbs: between this and `lateMs` it holds. */
  readonly holdMs: number
  /** A tenant counts as starting runs for this long after its last start (ms). */
  readonly activeMs: number
  /** The pacing ends after the busiest tenant asked for under half the rate for this long (ms). */
  readonly releaseMs: number
  /** The shared rate never falls below this (starts a second). */
  readonly minRate: number
  /** How far ahead of its pace a tenant may start (ms): a burst of at most this long's worth of the rate. */
  readonly burstMs: number
}

export const defaultShareSettings = (lateMs: number): ShareSettings => ({
  lateMs,
  holdMs: lateMs / 2,
  activeMs: 10_000,
  releaseMs: 5_000,
  minRate: 2,
  burstMs: 100
})

const DECREASE = 0.7
const INCREASE_PER_TICK = 0.5

export interface ShareDecision {
  readonly allowed: boolean
  /** When refused: whole seconds until the tenant's next start fits its pace (at least 1). */
  readonly retryAfterSeconds: number
}

export interface StartShare {
  /** `tenant` asks to start a run at `now` (ms): let through, or refused while over the shared rate. */
  readonly admit: (tenant: string, now: number) => ShareDecision
  /** The rate (starts a second) every tenant's starts are paced at now; undefined: none. */
  readonly rate: () => number | undefined
  /** Whether more than one tenant started runs lately: only then is the loop's lateness worth watching. */
  readonly contended: () => boolean
  /** At each tick: the loop's mean lateness (ms) since the last. */
  readonly tick: (lateMs: number, now: number) => void
}

export const makeStartShare = (settings: ShareSettings): StartShare => {
  const lastStart = new Map<string, number>()
  let second = new Map<string, number>()
  let secondBegan = 0
  /** The busiest tenant's starts in the last whole second, and in the current one so far. */
  let busiestLast = 0
  let busiestNow = 0
  let active = 0
  let shared: number | undefined
  let askedLittleSince: number | undefined

  /** Per tenant, when its next start is due at the shared rate (GCRA's theoretical arrival time). */
  const due = new Map<string, number>()
  const allowed: ShareDecision = { allowed: true, retryAfterSeconds: 0 }

  const admit = (tenant: string, now: number): ShareDecision => {
    lastStart.set(tenant, now)
    const rate = active < 2 ? undefined : shared
    if (rate !== undefined) {
      // At least one start's worth of burst (and a millisecond against rounding): a tenant that has waited its turn gets one.
      const next = paced(Math.max(due.get(tenant) ?? now, now), now, rate, Math.max(settings.burstMs, 1000 / rate + 1))
      if (!next.allowed) return next.decision
      due.set(tenant, next.arrival)
    }
    started(tenant, now)
    return allowed
  }

  const started = (tenant: string, now: number) => {
    if (now - secondBegan >= 1000) {
      busiestLast = now - secondBegan >= 2000 ? 0 : busiestNow
      second = new Map()
      busiestNow = 0
      secondBegan = now
    }
    const count = (second.get(tenant) ?? 0) + 1
    second.set(tenant, count)
    if (count > busiestNow) busiestNow = count
  }

  const tick = (lateMs: number, now: number) => {
    active = 0
    for (const [tenant, at] of lastStart) {
      if (now - at > settings.activeMs) lastStart.delete(tenant)
      else active += 1
    }
    if (now - secondBegan >= 2000) busiestLast = busiestNow = 0
    for (const [tenant, at] of due) if (at < now) due.delete(tenant)
    if (active < 2) {
      shared = undefined
      askedLittleSince = undefined
      return
    }
    const busiest = Math.max(busiestLast, busiestNow)
    if (lateMs > settings.lateMs) {
      shared = Math.max(settings.minRate, shared === undefined ? busiest / 2 : shared * DECREASE)
      askedLittleSince = undefined
      return
    }
    if (shared === undefined) return
    // Near the limit the rate holds instead of probing on until the loop is late: each probe past
    // it was a burst of late ticks (and collections) that the quiet tenant's runs ran into.
    if (lateMs > settings.holdMs) return
    shared += INCREASE_PER_TICK
    if (busiest >= shared / 2) askedLittleSince = undefined
    else if (askedLittleSince === undefined) askedLittleSince = now
    else if (now - askedLittleSince >= settings.releaseMs) {
      shared = undefined
      askedLittleSince = undefined
    }
  }

  return { admit, tick, rate: () => (active < 2 ? undefined : shared), contended: () => active >= 2 }
}

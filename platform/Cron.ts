import { Cron } from "croner"
import { Either } from "effect"

/** A cron expression in an IANA time zone, parsed with croner. */
export interface CronSchedule {
  /** The first fire time strictly after `after`, or undefined when it never fires again. */
  readonly nextAfter: (after: Date) => Date | undefined
  /** The last fire time at or before `at`. */
  readonly latestAtOrBefore: (at: Date) => Date | undefined
}

export interface CronProblem {
  readonly field: "cron" | "timezone"
  readonly message: string
}

const validZone = (timezone: string) => Either.try(() => new Intl.DateTimeFormat("en-US", { timeZone: timezone })).pipe(Either.isRight)

/**
 * Parses `cron` (5 fields, or 6 with seconds first) in `timezone`. A pattern that never fires
 * (the 31st of February) is refused like a malformed one.
 */
export const parseCron = (cron: string, timezone: string): Either.Either<CronSchedule, CronProblem> => {
  if (timezone.trim() === "" || !validZone(timezone)) {
    return Either.left({ field: "timezone", message: `'${timezone}' is not an IANA time zone (for example Europe/Berlin or UTC)` })
  }
  const fields = cron.trim().split(/\s+/)
  if (fields.length !== 5 && fields.length !== 6) {
    return Either.left({ field: "cron", message: `A cron expression has 5 fields, or 6 with seconds first; '${cron}' has ${fields.length}` })
  }
  return Either.try({
    try: () => new Cron(fields.join(" "), { timezone, mode: "5-or-6-parts", paused: true }),
    catch: (error) => ({
      field: "cron" as const,
      message: `'${cron}' is not a valid cron expression: ${error instanceof Error ? error.message : String(error)}`
    })
  }).pipe(
    Either.flatMap((job) =>
      job.nextRun(new Date()) === null
        ? Either.left({ field: "cron" as const, message: `'${cron}' never fires` })
        : Either.right<CronSchedule>({
          nextAfter: (after) => job.nextRun(after) ?? undefined,
          latestAtOrBefore: (at) => job.previousRuns(1, new Date(at.getTime() + 1))[0]
        })
    )
  )
}

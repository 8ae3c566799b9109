import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import { AppConfig } from "../../platform/Config.js"
import { LoggingLive } from "../../platform/Logging.js"
import { StartupError, startupFailureLine } from "../../platform/StartupError.js"

const loadEnvFile = Effect.try({
  try: () => (existsSync(".env") ? process.loadEnvFile(".env") : undefined),
  catch: (error) => new StartupError({ message: `The .env file cannot be read (${String(error)}): fix or remove it.` })
})

/**
 * A start that fails prints one line naming the cause and the fix, and exits non-zero. A
 * configuration that cannot work says so before the platform's modules load (seconds of a
 * start on a small machine).
 */
const main = loadEnvFile.pipe(
  Effect.zipRight(AppConfig.load),
  Effect.zipRight(Effect.promise(() => import("./Platform.js"))),
  Effect.flatMap(({ PlatformLive }) => Layer.launch(PlatformLive)),
  Effect.provide(LoggingLive),
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause) ? Effect.void : Effect.sync(() => process.stderr.write(`error: ${startupFailureLine(cause)}\n`))
  )
)

/**
 * The runtime stops the platform on the first SIGTERM/SIGINT. A second one (a supervisor and a
 * terminal both signalling, or `npm start` forwarding the group's signal) must not cut the drain
 * short and orphan the embedded database; a third forces the exit.
 */
let signals = 0
const onSignal = () => {
  signals += 1
  if (signals === 2) process.stderr.write("Shutting down; send the signal once more to force the exit\n")
  if (signals >= 3) process.exit(130)
}
process.on("SIGTERM", onSignal)
process.on("SIGINT", onSignal)

NodeRuntime.runMain(main, { disableErrorReporting: true, disablePrettyLogger: true })

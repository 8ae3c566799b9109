import { Layer } from "effect"
import { Audit } from "./Audit.js"
import { CredentialsCipher } from "./CredentialsCipher.js"
import { Draining } from "./Draining.js"
import { Idempotency } from "./Idempotency.js"
import { Mailer } from "./Mailer.js"
import { WorkerPool } from "./workers/WorkerPool.js"

/** The platform's stores and clients every service may use (and the worker pool), over the database and configuration. */
export const PlatformServicesLive = Layer.mergeAll(
  Audit.Default,
  Mailer.Default,
  CredentialsCipher.Default,
  Idempotency.Default,
  Draining.Default,
  WorkerPool.Default
)

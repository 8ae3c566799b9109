import { hostname } from "node:os"
import type { AppConfigShape } from "../platform/Config.js"

/**
 * How this process names itself to a collector (traces and metrics): `service.name` per role
 * (`builder-platform` for the single process, `builder-platform-gateway`, `-services`,
 * `-runners`), `service.instance.id` unique per process (a runner's cluster address, else the
 * host and HTTP port), and `bp.role`.
 */
export const serviceIdentity = (config: AppConfigShape) => {
  const serviceName = config.role === "all" ? "builder-platform" : `builder-platform-${config.role}`
  const instanceId = config.role === "runners" ? `${config.runnerHost}:${config.runnerPort}` : `${hostname()}:${config.port}`
  return {
    serviceName,
    instanceId,
    attributes: { "service.name": serviceName, "service.instance.id": instanceId, "bp.role": config.role }
  }
}

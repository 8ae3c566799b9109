import { isolated } from "../../platform/Isolated.js"
import { Authentication } from "../../schemas/Security.js"
import { Agents } from "./Agents.js"
import { GeneratedFilesLive } from "./FilesRepo.js"
import { AgentsHttp } from "./http/AgentsHttp.js"

/** Agent definitions and test executions. */
export const AgentLive = Agents.Default

/** The files agents produce (read by the runtime's tools). */
export const AgentFilesLive = GeneratedFilesLive

export const AgentHttpLive = isolated(AgentsHttp, Authentication, Agents)

import { AgentNode } from "./AgentNode.js"
import { CallAieNode } from "./CallAieNode.js"
import { LiveAgentTransferNode } from "./LiveAgentTransferNode.js"
import { NotifyUserNode } from "./NotifyUserNode.js"
import { ScheduleNode } from "./ScheduleNode.js"
import { SendEmailNode } from "./SendEmailNode.js"
import { UnavailableNodes } from "./UnavailableNodes.js"

/** Every node type the runtime executes. A new type is a file next to this one and a line here. */
export const BuiltinNodes = [AgentNode, CallAieNode, SendEmailNode, ScheduleNode, NotifyUserNode, LiveAgentTransferNode, ...UnavailableNodes] as const

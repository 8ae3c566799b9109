import { Effect } from "effect"
import { AgentNode } from "./AgentNode.js"
import { CallAieNode } from "./CallAieNode.js"
import { LiveAgentTransferNode } from "./LiveAgentTransferNode.js"
import { ExtraNodeTypes, nodeContracts } from "./NodeType.js"
import { NotifyUserNode } from "./NotifyUserNode.js"
import { ScheduleNode } from "./ScheduleNode.js"
import { SendEmailNode } from "./SendEmailNode.js"

/** Every node type the runtime executes. A new type is a file next to this one and a line here. */
export const BuiltinNodes = [AgentNode, CallAieNode, SendEmailNode, ScheduleNode, NotifyUserNode, LiveAgentTransferNode] as const

/** The node types in force: the built-in ones and those of ExtraNodeTypes (which replace a built-in one of the same name). */
export const nodeTypesInForce = Effect.map(ExtraNodeTypes, (extra) => nodeContracts([...BuiltinNodes, ...extra]))

import { existsSync } from "node:fs"
import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { PlatformLive } from "./Platform.js"

if (existsSync(".env")) process.loadEnvFile(".env")

NodeRuntime.runMain(Layer.launch(PlatformLive))

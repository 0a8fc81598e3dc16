/** The Management feature's adapters for the standalone server (slot: fill in). */
import { Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const ManagementServerAdapters = (_config: ServerConfigShape) => Layer.empty

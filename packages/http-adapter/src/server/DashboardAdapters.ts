/** The Dashboard feature's adapters for the standalone server (slot: fill in). */
import { Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const DashboardServerAdapters = (_config: ServerConfigShape) => Layer.empty

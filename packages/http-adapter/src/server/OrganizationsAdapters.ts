/**
 * The Organizations feature's adapters in the standalone server. It has none: its only ports are
 * repositories (in the store), and invitation tokens are returned to the caller, not delivered.
 */
import { Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const OrganizationsServerAdapters = (_config: ServerConfigShape) => Layer.empty

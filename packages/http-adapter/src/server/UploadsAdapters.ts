/** The Uploads feature's adapters in the standalone server (e.g. filesystem or console implementations). */
import { Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const UploadsServerAdapters = (_config: ServerConfigShape) => Layer.empty

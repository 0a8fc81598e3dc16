/**
 * The Voice feature's background work in a server process (slot: fill in): a scoped layer built on
 * the core services and ports, e.g. a fiber forked with `Effect.forkScoped`.
 */
import { Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const VoiceWorkers = (_config: ServerConfigShape) => Layer.empty

/** The Webhooks feature's ports in memory (slot: fill in; see CONTRIBUTING.md). */
import { Layer } from "effect"
import type { MemoryState } from "./MemoryState.js"

export const WebhooksMemory: Layer.Layer<never, never, MemoryState> = Layer.empty

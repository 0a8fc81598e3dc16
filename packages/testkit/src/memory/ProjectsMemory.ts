/** The Projects feature's memory layers (repositories over `MemoryState`, and test doubles of its ports). */
import { Layer } from "effect"
import type { MemoryState } from "./MemoryState.js"

export const ProjectsMemory: Layer.Layer<never, never, MemoryState> = Layer.empty

/**
 * The Projects feature in core: its services (`ProjectsCore`, which needs only ports) and the ports it adds
 * to the store (`ProjectsPorts`). Re-export the feature's modules from here.
 */
import { Layer } from "effect"

export const ProjectsCore = Layer.empty
export type ProjectsPorts = never

/**
 * The Projects feature in core: its services (`ProjectsCore`, which needs only ports) and the ports it adds
 * to the store (`ProjectsPorts`). Re-export the feature's modules from here.
 */
import { Layer } from "effect"
import { ProjectClosures } from "./ProjectClosures.js"
import type { ProjectsRepo } from "./Ports.js"
import { ProjectsService } from "./ProjectsService.js"

export * from "./Errors.js"
export * from "./Ports.js"
export * from "./Project.js"
export * from "./ProjectClosures.js"
export * from "./ProjectGate.js"
export * from "./ProjectsService.js"
export * from "./Slugs.js"

export const ProjectsCore = Layer.mergeAll(ProjectsService.Default, ProjectClosures.Default)
/** Projects also read memberships through `OrganizationsRepo`, the Organizations feature's port. */
export type ProjectsPorts = ProjectsRepo

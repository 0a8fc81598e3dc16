/**
 * The Projects feature in core: its services (`ProjectsCore`, which needs only ports) and the ports it adds
 * to the store (`ProjectsPorts`). Re-export the feature's modules from here.
 */
import { Layer } from "effect"
import { ProjectClosures } from "./ProjectClosures.js"
import { ProjectClosureStatus } from "./ProjectClosureStatus.js"
import { Platforms } from "./PlatformSwitches.js"
import type { PlatformsRepo, ProjectUsersRepo } from "./PlatformsAndUsersPorts.js"
import type { ProjectsRepo } from "./Ports.js"
import { ProjectsService } from "./ProjectsService.js"
import type { ProjectSettingsRepo } from "./ProjectSettingsPorts.js"
import type { ProjectRequestCounts } from "./RequestCountsPorts.js"
import { ProjectUsers } from "./ProjectUsers.js"

export * from "./Errors.js"
export * from "./Ports.js"
export * from "./Project.js"
export * from "./ProjectClosures.js"
export * from "./ProjectClosureStatus.js"
export * from "./ProjectGate.js"
export * from "./ProjectsService.js"
export * from "./Slugs.js"
export { Platforms } from "./PlatformSwitches.js"
export * from "./PlatformsAndUsersErrors.js"
export * from "./PlatformsAndUsersPorts.js"
export * from "./PlatformsAndUsersSchema.js"
export * from "./ProjectIntegrations.js"
export * from "./ProjectSettingsPorts.js"
export * from "./ProjectUsers.js"
export * from "./RequestCountsPorts.js"

/** Platform switches and end users (the management API's, also the Dashboard's) are the project's. */
export const ProjectsCore = Layer.mergeAll(
  ProjectsService.layer,
  ProjectClosures.layer,
  ProjectClosureStatus.layer,
  Platforms.layer,
  ProjectUsers.layer
)
/**
 * Projects also read memberships through `OrganizationsRepo`, the Organizations feature's port;
 * `ProjectClosureStatus` reads the billing, platforms and voice features' ports.
 * `ProjectSettingsRepo` backs `ProjectIntegrations`, which the Dashboard feature composes.
 * `ProjectRequestCounts` holds the API requests answered per project and hour (the console's overview).
 */
export type ProjectsPorts = ProjectsRepo | PlatformsRepo | ProjectUsersRepo | ProjectSettingsRepo | ProjectRequestCounts

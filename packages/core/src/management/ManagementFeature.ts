/**
 * The Management feature in core (API.md §4): who may use the management API (`ManagementAccess`),
 * platform switches (`Platforms`, interface C, also used by the Dashboard API) and a project's end
 * users (`ProjectUsers`). Management webhooks belong to the Webhooks feature and lines to Voice.
 */
import { Layer } from "effect"
import { ManagementAccess } from "./ManagementAccess.js"
import { Platforms } from "./Platforms.js"
import type { PlatformsRepo, ProjectUsersRepo } from "./Ports.js"
import { ProjectUsers } from "./ProjectUsers.js"

export * from "./Errors.js"
export * from "./ManagementAccess.js"
export { Platforms } from "./Platforms.js"
export * from "./Ports.js"
export * from "./ProjectUsers.js"
export * from "./Schema.js"

export const ManagementCore = Layer.mergeAll(ManagementAccess.Default, Platforms.Default, ProjectUsers.Default)
/** Management reads projects through `ProjectsRepo` (the Projects feature's port). */
export type ManagementPorts = PlatformsRepo | ProjectUsersRepo

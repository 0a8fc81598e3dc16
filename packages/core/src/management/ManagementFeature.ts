/**
 * The Management feature in core (docs/api-notes/management-api.md): who may use the management API
 * (`ManagementAccess`). What the management API serves lives in its contexts: platform switches and
 * a project's end users in `projects/` (composed by `ProjectsCore`), management webhooks in
 * Webhooks, lines in Voice.
 */
import { ManagementAccess } from "./ManagementAccess.js"

export * from "./Errors.js"
export * from "./ManagementAccess.js"

export const ManagementCore = ManagementAccess.layer
/** Management reads projects through `ProjectsRepo` (the Projects feature's port); it adds none. */
export type ManagementPorts = never

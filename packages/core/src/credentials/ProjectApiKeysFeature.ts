/**
 * The ProjectApiKeys feature in core: its services (`ProjectApiKeysCore`, which needs only ports) and the ports it adds
 * to the store (`ProjectApiKeysPorts`). Re-export the feature's modules from here.
 *
 * `ProjectKeyVerifier` (identity/ProjectKeyVerifier.ts) is part of this feature too, but lives in the
 * identity core beside `Authenticator`, which calls it; `ProjectApiKeys` shares that one instance.
 */
import type { ProjectApiKeysRepo } from "./ProjectApiKeyPorts.js"
import { ProjectApiKeys } from "./ProjectApiKeys.js"

export * from "./ProjectApiKeyErrors.js"
export * from "./ProjectApiKeyPorts.js"
export * from "./ProjectApiKeys.js"
export * from "./ProjectApiKeySchema.js"

export const ProjectApiKeysCore = ProjectApiKeys.layer
export type ProjectApiKeysPorts = ProjectApiKeysRepo

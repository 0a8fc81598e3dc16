/**
 * The Organizations feature in core (docs/api-notes/accounts-and-projects.md): its services
 * (`OrganizationsCore`, which needs only ports) and the ports it adds to the store
 * (`OrganizationsPorts`). The `OrganizationsRepo` port itself is in OrganizationsPorts.ts (exported
 * from the package index).
 */
import { Layer } from "effect"
import type { InvitationsRepo } from "./InvitationsPorts.js"
import { Invitations } from "./Invitations.js"
import type { OrganizationsRepo } from "./OrganizationsPorts.js"
import { Organizations } from "./Organizations.js"

export * from "./InvitationsPorts.js"
export * from "./Invitations.js"
export * from "./OrganizationErrors.js"
export * from "./OrganizationPages.js"
export * from "./OrganizationSchema.js"
export * from "./Organizations.js"

/** Organizations and invitations; needs the organizations, invitations and accounts repositories, Secrets and ServerSecret. */
export const OrganizationsCore = Layer.mergeAll(Organizations.layer, Invitations.layer)
export type OrganizationsPorts = OrganizationsRepo | InvitationsRepo

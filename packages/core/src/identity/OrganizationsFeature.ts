/**
 * The Organizations feature in core: its services (`OrganizationsCore`, which needs only ports) and the ports it adds
 * to the store (`OrganizationsPorts`). Re-export the feature's modules from here.
 */
import { Layer } from "effect"

export const OrganizationsCore = Layer.empty
export type OrganizationsPorts = never

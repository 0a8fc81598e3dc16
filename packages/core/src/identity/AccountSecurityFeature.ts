/**
 * The AccountSecurity feature in core: its services (`AccountSecurityCore`, which needs only ports) and the ports it adds
 * to the store (`AccountSecurityPorts`). Re-export the feature's modules from here.
 */
import { Layer } from "effect"

export const AccountSecurityCore = Layer.empty
export type AccountSecurityPorts = never

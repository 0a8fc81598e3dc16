/**
 * The Management feature in core (slot: fill in; see CONTRIBUTING.md). `ManagementCore` is a layer of the
 * feature's services needing only ports; `ManagementPorts` the port tags it adds.
 */
import { Layer } from "effect"

export const ManagementCore = Layer.empty
export type ManagementPorts = never

/**
 * The Dashboard feature in core (slot: fill in; see CONTRIBUTING.md). `DashboardCore` is a layer of the
 * feature's services needing only ports; `DashboardPorts` the port tags it adds.
 */
import { Layer } from "effect"

export const DashboardCore = Layer.empty
export type DashboardPorts = never

/**
 * The ProjectApiKeys feature in core: its services (`ProjectApiKeysCore`, which needs only ports) and the ports it adds
 * to the store (`ProjectApiKeysPorts`). Re-export the feature's modules from here.
 */
import { Layer } from "effect"

export const ProjectApiKeysCore = Layer.empty
export type ProjectApiKeysPorts = never

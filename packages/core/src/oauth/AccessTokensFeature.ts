/**
 * The AccessTokens feature in core: its services (`AccessTokensCore`, which needs only ports) and the ports it adds
 * to the store (`AccessTokensPorts`). Re-export the feature's modules from here.
 */
import { Layer } from "effect"

export const AccessTokensCore = Layer.empty
export type AccessTokensPorts = never

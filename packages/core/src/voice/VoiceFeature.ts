/**
 * The Voice feature in core (slot: fill in; see CONTRIBUTING.md). `VoiceCore` is a layer of the
 * feature's services needing only ports; `VoicePorts` the port tags it adds.
 */
import { Layer } from "effect"

export const VoiceCore = Layer.empty
export type VoicePorts = never

/**
 * The Voice feature in core (docs/api-notes/voice.md): lines, voice
 * profiles and line profile assignments, and calls driven by the pure call state machine.
 *
 * `VoiceCore` needs the store's ports (`VoicePorts` plus projects, organizations and the events
 * outbox) and two that are not the store's: `LineProvider` (where numbers come from) and
 * `SipGateway` (where call actions go out). `VoiceSettings` has defaults; the server sets them.
 */
import { Layer } from "effect"
import { Calls } from "./Calls.js"
import { Lines, type LinesRepo } from "./Lines.js"
import type { CallsRepo, VoiceProfilesRepo } from "./Ports.js"
import { VoiceProfiles } from "./VoiceProfiles.js"

export * from "./CallApiSchema.js"
export * from "./CallEvents.js"
export * from "./CallSignalBatchDecoder.js"
export * from "./Calls.js"
export * from "./CallWire.js"
export * from "./Errors.js"
export * from "./Lines.js"
export * from "./Ports.js"
export * from "./SipDigest.js"
export * from "./VoiceProfiles.js"
export * from "./VoiceProfileSchema.js"

export const VoiceCore = Layer.mergeAll(Lines.layer, VoiceProfiles.layer, Calls.layer)
export type VoicePorts = LinesRepo | VoiceProfilesRepo | CallsRepo

/** The Voice feature's /v1 handlers (slot: fill in). */
import { HttpApiBuilder } from "@effect/platform"
import { V1Api } from "./Api.js"

export const VoiceGroupLive = HttpApiBuilder.group(V1Api, "voice", (handlers) => handlers)

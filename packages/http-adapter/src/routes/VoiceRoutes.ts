/**
 * The Voice feature's routes outside the HttpApi declaration (slot: fill in): pages, the Dashboard
 * API, OAuth endpoints, the management API. `VoiceRoutes` adds them to `HttpApiBuilder.Router`;
 * `voiceRouteTable` lists [method, path pattern] for 405 answers.
 */
import { Layer } from "effect"

export const VoiceRoutes = Layer.empty
export const voiceRouteTable: ReadonlyArray<readonly [string, string]> = []

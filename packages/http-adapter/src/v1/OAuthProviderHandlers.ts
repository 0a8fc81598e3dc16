/** The OAuthProvider feature's /v1 handlers (slot: fill in). */
import { HttpApiBuilder } from "@effect/platform"
import { V1Api } from "./Api.js"

export const OAuthProviderGroupLive = HttpApiBuilder.group(V1Api, "oAuthProvider", (handlers) => handlers)

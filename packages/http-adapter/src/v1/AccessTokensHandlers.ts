/** The AccessTokens feature's /v1 handlers. */
import { HttpApiBuilder } from "@effect/platform"
import { V1Api } from "./Api.js"

export const AccessTokensGroupLive = HttpApiBuilder.group(V1Api, "accessTokens", (handlers) => handlers)

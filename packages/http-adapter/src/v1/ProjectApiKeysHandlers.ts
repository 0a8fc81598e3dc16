/** The ProjectApiKeys feature's /v1 handlers. */
import { HttpApiBuilder } from "@effect/platform"
import { V1Api } from "./Api.js"

export const ProjectApiKeysGroupLive = HttpApiBuilder.group(V1Api, "projectApiKeys", (handlers) => handlers)

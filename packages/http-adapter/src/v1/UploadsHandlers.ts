/** The Uploads feature's /v1 handlers. */
import { HttpApiBuilder } from "@effect/platform"
import { V1Api } from "./Api.js"

export const UploadsGroupLive = HttpApiBuilder.group(V1Api, "uploads", (handlers) => handlers)

/** The Organizations feature's /v1 handlers. */
import { HttpApiBuilder } from "@effect/platform"
import { V1Api } from "./Api.js"

export const OrganizationsGroupLive = HttpApiBuilder.group(V1Api, "organizations", (handlers) => handlers)

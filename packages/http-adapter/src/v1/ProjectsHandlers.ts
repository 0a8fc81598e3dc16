/** The Projects feature's /v1 handlers. */
import { HttpApiBuilder } from "@effect/platform"
import { V1Api } from "./Api.js"

export const ProjectsGroupLive = HttpApiBuilder.group(V1Api, "projects", (handlers) => handlers)

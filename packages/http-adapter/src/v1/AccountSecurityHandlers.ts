/** The AccountSecurity feature's /v1 handlers. */
import { HttpApiBuilder } from "@effect/platform"
import { V1Api } from "./Api.js"

export const AccountSecurityGroupLive = HttpApiBuilder.group(V1Api, "accountSecurity", (handlers) => handlers)

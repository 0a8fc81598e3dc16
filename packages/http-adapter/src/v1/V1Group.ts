/** `v1Group`, which every feature's handlers build on. */
import { HttpApi, type HttpApiGroup } from "@effect/platform"

/**
 * A feature's group as an API of its own, for `HttpApiBuilder.group`: the same id as `V1Api`, so
 * its handlers are the ones `V1Api` needs, without the handlers importing the registry.
 */
export const v1Group = <const G extends HttpApiGroup.HttpApiGroup.Any>(group: G) => HttpApi.make("switchboard-v1").add(group)

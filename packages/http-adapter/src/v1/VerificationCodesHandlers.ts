/** The filtered verification codes' /v1 handlers (docs/provisioning.md): counts and lists, per project and per held resource. */
import { HttpApiBuilder } from "effect/http-api"
import { FilteredVerificationCodesQuery, VerificationCodes } from "@switchboard/core/platforms"
import type { ProjectId } from "@switchboard/core/shared"
import { Effect } from "effect"
import { onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { domain } from "./Pipeline.js"
import { VerificationCodesGroup } from "./VerificationCodesApi.js"

export const VerificationCodesGroupLive = HttpApiBuilder.group(v1Group(VerificationCodesGroup), "verificationCodes", (handlers) =>
  Effect.gen(function*() {
    const codes = yield* VerificationCodes
    const count = (projectId: ProjectId, query: FilteredVerificationCodesQuery, resourceId?: string) =>
      Effect.gen(function*() {
        const principal = yield* onProject(projectId, "platforms:read")
        return yield* domain(codes.count(projectId, principal, query, resourceId))
      })
    const list = (projectId: ProjectId, query: FilteredVerificationCodesQuery, resourceId?: string) =>
      Effect.gen(function*() {
        const principal = yield* onProject(projectId, "platforms:read")
        const page = yield* domain(codes.list(projectId, principal, query, resourceId))
        return {
          codes: page.codes,
          ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
        }
      })
    return handlers
      .handle("countFilteredVerificationCodes", ({ params: path, query }) => count(path.projectId, query))
      .handle("listFilteredVerificationCodes", ({ params: path, query }) => list(path.projectId, query))
      .handle("countResourceFilteredVerificationCodes", ({ params: path, query }) => count(path.projectId, query, path.resourceId))
      .handle("listResourceFilteredVerificationCodes", ({ params: path, query }) => list(path.projectId, query, path.resourceId))
  }))

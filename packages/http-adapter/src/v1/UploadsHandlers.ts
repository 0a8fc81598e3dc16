/**
 * The Uploads feature's /v1 handlers: tickets, commits and resets of account pictures (account
 * credential) and of agent avatars (`project:write`; project API keys allowed).
 */
import { HttpApiBuilder } from "effect/http-api"
import { type HttpServerResponse } from "effect/http"
import { Projects } from "@switchboard/core"
import { Account, toAccount, UploadTicket } from "@switchboard/core/accounts"
import { Requirement } from "@switchboard/core/credentials"
import { toAgentProfile } from "@switchboard/core/projects"
import {
  accountUploadOwner,
  AgentAvatars,
  profilePicturePurpose,
  Uploads
} from "@switchboard/core/uploads"
import { Effect, Ref } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { actingAccount, authorize } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { UploadsGroup } from "./UploadsApi.js"
import { defaultPictureUrl } from "./DefaultPicture.js"
import { idempotent } from "./Idempotency.js"
import { requestJson } from "./JsonBody.js"
import { domain, rendered, toResponse } from "./Pipeline.js"
import type { ProblemFailure } from "./Problems.js"

/**
 * Runs an operation that may release a stored file, and removes that file only once the operation
 * — idempotency record included — has committed; a rolled-back change keeps its file.
 */
export const releasingFile = <R>(
  uploads: Uploads["Service"],
  operation: (release: (blobKey: string | null) => Effect.Effect<void>) => Effect.Effect<HttpServerResponse.HttpServerResponse, ProblemFailure, R>
) =>
  Effect.gen(function*() {
    const released = yield* Ref.make<string | null>(null)
    const response = yield* operation((blobKey) => Ref.set(released, blobKey))
    yield* uploads.discard(yield* Ref.get(released))
    return response
  })

export const UploadsGroupLive = HttpApiBuilder.group(v1Group(UploadsGroup), "uploads", (handlers) =>
  Effect.gen(function*() {
    const uploads = yield* Uploads
    const avatars = yield* AgentAvatars
    const config = yield* ServerConfig
    // The default picture of accounts is also the default agent avatar (as in ProjectsHandlers).
    const defaultPicture = defaultPictureUrl(config.apiUrl)
    const accountOf = (record: Parameters<typeof toAccount>[0]) => toAccount(record, defaultPicture)
    const onProject = (projectId: string) =>
      authorize(Requirement.Project({ projectId, permission: "project:write", accountOnly: false }))
    return handlers
      .handle("createAccountProfilePictureUpload", ({ payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          const ticket = yield* domain(uploads.createTicket({
            owner: accountUploadOwner(accountId),
            purpose: profilePicturePurpose,
            contentType: payload.contentType
          }))
          return toResponse(yield* rendered(UploadTicket, ticket, 201, { "cache-control": "no-store" }))
        }))
      // The commits and resets run the Idempotency-Key protocol themselves, inside `releasingFile`:
      // the replaced file is removed only once the change and its idempotency record have committed.
      // A commit fingerprints the body `JsonBody` read.
      .handle("commitAccountProfilePicture", ({ payload, request }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          return yield* releasingFile(uploads, (release) =>
            idempotent(
              { route: "/v1/account/profile-picture", body: requestJson(request) },
              Effect.gen(function*() {
                const { account, replaced } = yield* domain(uploads.commitAccountPicture({ accountId, uploadId: payload.uploadId }))
                yield* release(replaced)
                return yield* rendered(Account, accountOf(account))
              })
            ))
        }))
      .handle("resetAccountProfilePicture", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          return yield* releasingFile(uploads, (release) =>
            idempotent(
              { route: "/v1/account/profile-picture" },
              Effect.gen(function*() {
                const { account, replaced } = yield* domain(uploads.resetAccountPicture(accountId))
                yield* release(replaced)
                return yield* rendered(Account, accountOf(account))
              })
            ))
        }))

      .handle("createAgentProfileAvatarUpload", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId)
          const ticket = yield* domain(avatars.createUpload({
            projectId: path.projectId,
            principal,
            contentType: payload.contentType
          }))
          return toResponse(yield* rendered(UploadTicket, ticket, 201, { "cache-control": "no-store" }))
        }))
      .handle("commitAgentProfileAvatar", ({ params: path, payload, request }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId)
          return yield* releasingFile(uploads, (release) =>
            idempotent(
              { route: "/v1/projects/:projectId/agent-profile/avatar", path: { projectId: path.projectId }, body: requestJson(request) },
              Effect.gen(function*() {
                const { project, replaced } = yield* domain(avatars.commit({
                  projectId: path.projectId,
                  principal,
                  uploadId: payload.uploadId
                }))
                yield* release(replaced)
                return yield* rendered(Projects.AgentProfile, toAgentProfile(project, defaultPicture))
              })
            ))
        }))
      .handle("resetAgentProfileAvatar", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId)
          return yield* releasingFile(uploads, (release) =>
            idempotent(
              { route: "/v1/projects/:projectId/agent-profile/avatar", path: { projectId: path.projectId } },
              Effect.gen(function*() {
                const { project, replaced } = yield* domain(avatars.reset(path.projectId, principal))
                yield* release(replaced)
                return yield* rendered(Projects.AgentProfile, toAgentProfile(project, defaultPicture))
              })
            ))
        }))
  }))

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
  CommitAccountProfilePictureRequest,
  CommitAgentProfileAvatarRequest,
  CreateAgentProfileAvatarUploadRequest,
  ProfilePictureUploadRequest,
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
import { decodeJsonBody, domain, rendered, toResponse } from "./Pipeline.js"
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
      .handleRaw("createAccountProfilePictureUpload", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          const body = yield* decodeJsonBody(ProfilePictureUploadRequest)
          const ticket = yield* domain(uploads.createTicket({
            owner: accountUploadOwner(accountId),
            purpose: profilePicturePurpose,
            contentType: body.value.contentType
          }))
          return toResponse(yield* rendered(UploadTicket, ticket, 201, { "cache-control": "no-store" }))
        }))
      .handleRaw("commitAccountProfilePicture", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          const body = yield* decodeJsonBody(CommitAccountProfilePictureRequest)
          return yield* releasingFile(uploads, (release) =>
            idempotent(
              { route: "/v1/account/profile-picture", body: body.json },
              Effect.gen(function*() {
                const { account, replaced } = yield* domain(uploads.commitAccountPicture({ accountId, uploadId: body.value.uploadId }))
                yield* release(replaced)
                return yield* rendered(Account, accountOf(account))
              })
            ))
        }))
      .handleRaw("resetAccountProfilePicture", () =>
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

      .handleRaw("createAgentProfileAvatarUpload", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId)
          const body = yield* decodeJsonBody(CreateAgentProfileAvatarUploadRequest)
          const ticket = yield* domain(avatars.createUpload({
            projectId: path.projectId,
            principal,
            contentType: body.value.contentType
          }))
          return toResponse(yield* rendered(UploadTicket, ticket, 201, { "cache-control": "no-store" }))
        }))
      .handleRaw("commitAgentProfileAvatar", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId)
          const body = yield* decodeJsonBody(CommitAgentProfileAvatarRequest)
          return yield* releasingFile(uploads, (release) =>
            idempotent(
              { route: "/v1/projects/:projectId/agent-profile/avatar", path: { projectId: path.projectId }, body: body.json },
              Effect.gen(function*() {
                const { project, replaced } = yield* domain(avatars.commit({
                  projectId: path.projectId,
                  principal,
                  uploadId: body.value.uploadId
                }))
                yield* release(replaced)
                return yield* rendered(Projects.AgentProfile, toAgentProfile(project, defaultPicture))
              })
            ))
        }))
      .handleRaw("resetAgentProfileAvatar", ({ params: path }) =>
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

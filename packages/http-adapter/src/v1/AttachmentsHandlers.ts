/**
 * Attachments' /v1 handlers (docs/provisioning.md). The upload reads the body as it streams
 * and stops past the size limit (413): a declared `Content-Length` over it is refused before a byte
 * is read. Its Idempotency-Key fingerprint covers the declared type and the bytes' SHA-256, so a
 * replay answers the same attachment and another file under the same key is IDEMPOTENCY_KEY_REUSED.
 */
import { HttpApiBuilder } from "effect/http-api"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { Attachment, Attachments, AttachmentSettings } from "@switchboard/core/platforms"
import { base64url, sha256Bytes } from "@switchboard/core/internal"
import { Effect } from "effect"
import { onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { AttachmentsGroup } from "./AttachmentsApi.js"
import { idempotent } from "./Idempotency.js"
import { domain, rendered, toResponse } from "./Pipeline.js"
import { problem, validationFailed } from "./ProblemFailure.js"
import { readBodyBytes } from "../http/Body.js"

const headerIssue = (header: string, message: string) =>
  validationFailed([{ code: "invalid_value", location: "header", message, path: `/${header}` }], `${header}: ${message}`)

/**
 * The request's file: `Content-Length` required and within the limit (413 before a byte is read),
 * its Content-Encoding (gzip, deflate, br) decoded, the limit counting the decoded bytes. Another
 * coding, or a body that does not decode, is refused (422).
 */
const fileBytes = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const settings = yield* AttachmentSettings
  const length = request.headers["content-length"] ?? ""
  if (!/^[1-9][0-9]{0,15}$/.test(length)) return yield* headerIssue("content-length", "is required: the file's size in bytes")
  if (Number(length) > settings.maxBytes) return yield* problem("PAYLOAD_TOO_LARGE", `The file exceeds ${settings.maxBytes} bytes.`)
  return yield* readBodyBytes(settings.maxBytes).pipe(
    Effect.catchTags({
      BodyTooLarge: () => problem("PAYLOAD_TOO_LARGE", `The file exceeds ${settings.maxBytes} bytes.`),
      BodyUnreadable: (e) =>
        e.location === "header"
          ? headerIssue("content-encoding", e.message)
          : validationFailed([{ code: "unreadable_body", location: "body", message: e.message, path: "" }], e.message)
    })
  )
})

export const AttachmentsGroupLive = HttpApiBuilder.group(v1Group(AttachmentsGroup), "attachments", (handlers) =>
  Effect.gen(function*() {
    const attachments = yield* Attachments
    const read = (projectId: string) => onProject(projectId, "platforms:read")
    const write = (projectId: string) => onProject(projectId, "platforms:write")

    return handlers
      // Raw: the body is the file's bytes, read as they stream (no payload to decode).
      .handleRaw("uploadAttachment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const request = yield* HttpServerRequest.HttpServerRequest
          const contentType = request.headers["content-type"] ?? ""
          if (contentType === "" || contentType.length > 512) {
            return yield* headerIssue("content-type", "is required: the file's media type, at most 512 characters")
          }
          const bytes = yield* fileBytes
          return yield* idempotent(
            { route: "/v1/projects/:projectId/attachments", path: { projectId: path.projectId }, body: { contentType, sha256: base64url(sha256Bytes(bytes)) } },
            Effect.flatMap(
              domain(attachments.upload(path.projectId, principal, { declaredType: contentType, bytes })),
              (a) => rendered(Attachment, a, 201)
            )
          )
        }))
      // Raw: the body is the file's bytes (no payload to decode). A PUT: a repeat after success is
      // refused (the attachment already has its bytes), so it needs no Idempotency-Key.
      .handleRaw("deliverAttachment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const bytes = yield* fileBytes
          const attachment = yield* domain(attachments.deliver(path.projectId, principal, path.attachmentId, bytes))
          return toResponse(yield* rendered(Attachment, attachment, 200))
        }))
      .handle("listAttachments", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const page = yield* domain(attachments.list(path.projectId, principal, query))
          return {
            items: page.items,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }
        }))
      .handle("getAttachment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(attachments.get(path.projectId, principal, path.attachmentId))
        }))
      // The bytes with their stored type and headers: the response is built here.
      .handle("downloadAttachment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const { attachment, bytes } = yield* domain(attachments.download(path.projectId, principal, path.attachmentId))
          return HttpServerResponse.uint8Array(bytes, {
            contentType: attachment.contentType,
            headers: {
              "cache-control": "private, max-age=0, no-store",
              "x-content-type-options": "nosniff",
              "content-security-policy": "default-src 'none'; sandbox",
              "content-disposition": `attachment; filename="${attachment.id}"`
            }
          })
        }))
  }))

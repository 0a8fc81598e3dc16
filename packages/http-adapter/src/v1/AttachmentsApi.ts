/**
 * Attachments' /v1 routes (docs/provisioning.md). Reads need `platforms:read`, the upload
 * `platforms:write` (the issue's permissions for the whole provisioning group), the delivery of an
 * inbound attachment's bytes `events:write` (the messaging edge's, as its message facts). The upload's body is the file's bytes (`Content-Type` its declared type,
 * `Content-Length` required) with an Idempotency-Key; the download answers the bytes with their
 * stored type.
 */
import { projectAccess } from "./Access.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Attachment, AttachmentPage, ListAttachmentsQuery } from "@switchboard/core/platforms"
import { ProjectId } from "@switchboard/core/shared"
import { Schema } from "effect"
import { idempotencyProblems as idempotency, projectProblems as common } from "./CommonProblems.js"
import { Idempotent, problems, Requires } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const BASE = "/v1/projects/:projectId/attachments"
const ProjectPath = Schema.Struct({ projectId: ProjectId })
const AttachmentPath = Schema.Struct({ projectId: ProjectId, attachmentId: Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(128))) })

export const AttachmentsGroup = HttpApiGroup.make("attachments")
  // `Idempotent` "in handler": the body is the file's bytes, which its handler reads and
  // fingerprints itself (declared type and SHA-256) for the Idempotency-Key protocol.
  .add(
    HttpApiEndpoint.post("uploadAttachment", BASE, {
      params: ProjectPath,
      success: Attachment.pipe(HttpApiSchema.status(201)),
      error: problems(common, idempotency, "PROJECT_CLOSING", "PAYLOAD_TOO_LARGE", "INVALID_ATTACHMENT_REQUEST")
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, "in handler").annotateMerge(OpenApi.annotations({
      summary: "Upload an attachment",
      description: "The request body is the file's bytes, Content-Type its declared media type and Content-Length its size (at most 25 MiB by default; 413 PAYLOAD_TOO_LARGE beyond, refused before it is read whole). The stored type is what the bytes are when they are a known format; a declaration they contradict is 400 INVALID_ATTACHMENT_REQUEST. Answers 201 with the attachment once it is downloadable. Needs `platforms:write` and an Idempotency-Key; 409 PROJECT_CLOSING."
    }))
  )
  .add(
    HttpApiEndpoint.get("listAttachments", BASE, {
      params: ProjectPath,
      query: ListAttachmentsQuery,
      success: AttachmentPage,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List attachments",
      description: "The project's attachments filtered by createdSince/createdBefore and updatedSince/updatedBefore (RFC 3339; since inclusive, before exclusive), ordered by orderBy (createdAt or updatedAt) in order (asc or desc); pageSize 0 means the default (50), at most 200 a page. Continue while nextPageToken is present, even after an empty page. Needs `platforms:read`."
    }))
  )
  .add(
    HttpApiEndpoint.get("getAttachment", `${BASE}/:attachmentId`, {
      params: AttachmentPath,
      success: Attachment,
      error: problems(common, "ATTACHMENT_NOT_FOUND")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Get an attachment",
      description: "The attachment's metadata: content type, size, state (processing until its bytes are stored, then ready). Needs `platforms:read`; 404 ATTACHMENT_NOT_FOUND."
    }))
  )
  .add(
    HttpApiEndpoint.get("downloadAttachment", `${BASE}/:attachmentId/content`, {
      params: AttachmentPath,
      success: Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "application/octet-stream" })),
      error: problems(common, "ATTACHMENT_NOT_FOUND", "ATTACHMENT_NOT_READY")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Download an attachment",
      description: "The attachment's bytes with their stored content type. A processing attachment is waited for up to 10 seconds, then 409 ATTACHMENT_NOT_READY with Retry-After: 5. Needs `platforms:read`; 404 ATTACHMENT_NOT_FOUND."
    }))
  )
  .add(
    HttpApiEndpoint.put("deliverAttachment", `${BASE}/:attachmentId/content`, {
      params: AttachmentPath,
      success: Attachment,
      error: problems(common, "PROJECT_CLOSING", "PAYLOAD_TOO_LARGE", "INVALID_ATTACHMENT_REQUEST", "ATTACHMENT_NOT_FOUND")
    }).annotate(Requires, projectAccess("events:write")).annotateMerge(OpenApi.annotations({
      summary: "Deliver an inbound attachment's bytes",
      description: "The messaging edge delivers the bytes of inbound media a received message fact named, whose attachment is processing until then: the request body is the file's bytes (Content-Length required, at most 25 MiB by default; 413 PAYLOAD_TOO_LARGE beyond). Answers 200 with the attachment, now ready; 400 INVALID_ATTACHMENT_REQUEST once it has its bytes. Needs `events:write`; 404 ATTACHMENT_NOT_FOUND; 409 PROJECT_CLOSING."
    }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Attachments",
    description: "Files a project uploads to send, or receives: metadata, lists and bytes."
  }))

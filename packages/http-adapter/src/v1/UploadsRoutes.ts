/**
 * Raw routes of the Uploads feature (docs/api-notes/accounts-and-projects.md "Uploads"), beside the
 * HttpApi:
 *
 * - `POST /v1/uploads/{uploadId}`: the upload target of a ticket. No bearer: the ticket's signed
 *   `formFields` are the authority. `multipart/form-data` with those fields first and the image last
 *   in a part named `file` (as with an S3 POST policy; fields after the file are ignored). The form
 *   is verified before the file is read; the file is read at most `maxBytes` (5 MiB) + 1 bytes, so
 *   an oversized file is refused while it streams (413), never buffered whole. → 204 No Content.
 * - `GET /v1/files/{key}`: a committed picture or avatar, public, with its stored content type.
 */
import { illFormedText } from "../http/Body.js"
import { HttpRouter, HttpServerRequest, HttpServerResponse, Multipart } from "effect/http"
import { type UploadTicketRecord, Uploads } from "@switchboard/core/uploads"
import { Effect, Option, Stream } from "effect"
import { domain } from "./Pipeline.js"
import { problem, validationFailed } from "./ProblemFailure.js"

/** Room for the boundaries, part headers and form fields around the file. */
export const FORM_OVERHEAD_BYTES = 64 * 1024
const MAX_FIELD_BYTES = 4 * 1024
const MAX_PARTS = 16

const formIssue = (path: string, message: string, code = "invalid_value") =>
  validationFailed(
    [{ code, location: "form", message, path }],
    path === "" ? `The upload form ${message}.` : `The upload form field ${path.slice(1)} ${message}.`
  )

/** Reads a part's (or a body's) content, failing with 413 as soon as it passes `max` bytes (also the console's picture form and attachments). */
export const readAtMost = <E>(content: Stream.Stream<Uint8Array, E>, max: number) =>
  Effect.gen(function*() {
    const chunks: Array<Uint8Array> = []
    let size = 0
    yield* Stream.runForEach(content, (chunk) => {
      size += chunk.length
      if (size > max) return Effect.fail(problem("PAYLOAD_TOO_LARGE", `The file exceeds ${max} bytes.`))
      chunks.push(chunk)
      return Effect.void
    })
    const bytes = new Uint8Array(size)
    let offset = 0
    for (const chunk of chunks) {
      bytes.set(chunk, offset)
      offset += chunk.length
    }
    return bytes
  })

const receiveUpload = (uploads: Uploads["Service"]) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { uploadId = "" } = yield* HttpRouter.params
    const contentType = request.headers["content-type"] ?? ""
    if (!/^multipart\/form-data\s*;.*boundary=/i.test(contentType)) {
      return yield* validationFailed([{
        code: "unsupported_media_type",
        location: "header",
        message: `Expected Content-Type multipart/form-data, got ${contentType === "" ? "none" : JSON.stringify(contentType)}.`,
        path: "/content-type"
      }], "The upload must be multipart/form-data.")
    }
    const maxBody = uploads.maxBytes + FORM_OVERHEAD_BYTES
    if (Number(request.headers["content-length"] ?? "0") > maxBody) {
      return yield* problem("PAYLOAD_TOO_LARGE", `The file exceeds ${uploads.maxBytes} bytes.`)
    }

    const fields: Record<string, string> = {}
    let file: { readonly ticket: UploadTicketRecord; readonly bytes: Uint8Array } | undefined
    let parts = 0
    yield* Stream.runForEach(request.multipartStream, (part) => {
      parts += 1
      if (parts > MAX_PARTS) return Effect.fail(formIssue("", `has more than ${MAX_PARTS} parts`, "too_many_parts"))
      if (part._tag === "Field") {
        if (file !== undefined) return Effect.void
        if (Object.hasOwn(fields, part.key)) return Effect.fail(formIssue(`/${part.key}`, "is sent more than once"))
        const why = illFormedText(part.key) ?? illFormedText(part.value)
        if (why !== undefined) return Effect.fail(formIssue(`/${part.key.replace(/[\u0000-\u001f]/g, "?")}`, why, "invalid_text"))
        fields[part.key] = part.value
        return Effect.void
      }
      if (part.key !== "file") return Effect.fail(formIssue(`/${part.key}`, "is not expected; send the image in a part named file"))
      if (file !== undefined) return Effect.fail(formIssue("/file", "is sent more than once"))
      return Effect.gen(function*() {
        // The form is checked before a byte of the file is read.
        const ticket = yield* domain(uploads.authorizeUpload(uploadId, fields))
        file = { ticket, bytes: yield* readAtMost(part.content, ticket.maxBytes) }
      })
    }).pipe(
      Effect.provideContext(Multipart.limitsServices({ maxFieldSize: MAX_FIELD_BYTES, maxTotalSize: maxBody })),
      Effect.catchTag("MultipartError", (e) =>
        Effect.fail(
          e.reason._tag === "BodyTooLarge"
            ? problem("PAYLOAD_TOO_LARGE", `The file exceeds ${uploads.maxBytes} bytes.`)
            : e.reason._tag === "FieldTooLarge"
            ? formIssue("", `has a field over ${MAX_FIELD_BYTES} bytes`, "field_too_large")
            : formIssue("", "is not a readable multipart/form-data body", "malformed_body")
        ))
    )
    if (file === undefined) {
      // Say what is wrong with the form first (403/409/422), then that the file is missing.
      yield* domain(uploads.authorizeUpload(uploadId, fields))
      return yield* formIssue("/file", "is required: send the image last, in a part named file", "missing")
    }
    yield* domain(uploads.receive(file.ticket, file.bytes))
    return HttpServerResponse.empty({ status: 204 })
  })

const serveFile = (uploads: Uploads["Service"]) =>
  Effect.gen(function*() {
    const { key = "" } = yield* HttpRouter.params
    const blob = yield* uploads.readFile(key)
    if (Option.isNone(blob)) return yield* problem("RESOURCE_NOT_FOUND", `No file ${key}.`)
    return HttpServerResponse.uint8Array(blob.value.bytes, {
      contentType: blob.value.contentType,
      headers: {
        // Keys are never reused, but a reset or replaced picture is deleted: caches may keep it a day at most.
        "cache-control": "public, max-age=86400",
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'"
      }
    })
  })

export const UploadsRawRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const uploads = yield* Uploads
    yield* router.add("POST", "/v1/uploads/:uploadId", receiveUpload(uploads))
    yield* router.add("GET", "/v1/files/:key", serveFile(uploads))
  }))

/** (method, path) of each raw route, for 405 answers. */
export const uploadsRawRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["POST", "/v1/uploads/:uploadId"],
  ["GET", "/v1/files/:key"]
]

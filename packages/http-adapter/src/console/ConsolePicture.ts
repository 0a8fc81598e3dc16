/**
 * The profile picture from the console: one multipart form — the CSRF field first, the
 * image in a part named `picture` — read here (the Dashboard reader refuses files), then handed to
 * the same core steps as the versioned API's upload (`Uploads`: a ticket, its signed form checked,
 * the file received and sniffed, the upload committed as the account's picture, the old file
 * removed once that has committed). The file is read at most the upload limit + 1 bytes.
 */
import { HttpServerRequest, Multipart } from "effect/http"
import { type AccountId } from "@switchboard/core/shared"
import { ImageContentType } from "@switchboard/core/accounts"
import { accountUploadOwner, profilePicturePurpose, type Uploads } from "@switchboard/core/uploads"
import { Effect, Schema, Stream } from "effect"
import { envelopeFailure } from "../http/Surfaces.js"
import { invalidBody, type RawBody } from "../routes/DashboardBody.js"
import { CSRF_FIELD } from "../routes/DashboardSession.js"
import { FORM_OVERHEAD_BYTES, readAtMost } from "../v1/UploadsRoutes.js"

/** What the picture form carries once read. */
interface PictureBody {
  readonly contentType: string
  readonly bytes: Uint8Array
}

/** Reads the picture form: `_csrf` and one `picture` file part, nothing else. */
export const readPictureForm = (maxBytes: number) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!/^multipart\/form-data\s*;.*boundary=/i.test(request.headers["content-type"] ?? "")) {
      return yield* envelopeFailure(415, "UNSUPPORTED_MEDIA_TYPE", "The picture form posts multipart/form-data.")
    }
    const tooLarge = envelopeFailure(413, "PAYLOAD_TOO_LARGE", `The picture exceeds ${maxBytes} bytes.`)
    // A body declared larger than the file and the form around it is refused before it is read.
    if (Number(request.headers["content-length"] ?? "0") > maxBytes + FORM_OVERHEAD_BYTES) return yield* tooLarge
    let csrf: string | undefined
    let picture: PictureBody | undefined
    yield* Stream.runForEach(request.multipartStream, (part) => {
      if (part._tag === "Field") {
        if (part.key !== CSRF_FIELD || csrf !== undefined) return Effect.fail(invalidBody(`${part.key.slice(0, 64)}: not a field of this form.`))
        csrf = part.value
        return Effect.void
      }
      if (part.key !== "picture" || picture !== undefined) return Effect.fail(invalidBody("Send one image, in the field picture."))
      return Effect.map(
        Effect.mapError(readAtMost(part.content, maxBytes), () => tooLarge),
        (bytes) => void (picture = { contentType: part.contentType, bytes })
      )
    }).pipe(
      Effect.provideContext(Multipart.limitsServices({ maxFieldSize: 4096, maxTotalSize: maxBytes + FORM_OVERHEAD_BYTES })),
      Effect.catchTag("MultipartError", (e) =>
        Effect.fail(e.reason._tag === "BodyTooLarge" ? tooLarge : invalidBody("The body is not a readable multipart/form-data body.")))
    )
    return { kind: "multipart", value: picture, csrf } satisfies RawBody
  })

const isImageType = Schema.is(ImageContentType)

/** Makes the form's image the account's picture, through the upload steps of the versioned API. */
export const setPictureFromForm = (uploads: typeof Uploads.Service, accountId: AccountId, value: unknown) =>
  Effect.gen(function*() {
    const picture = value as PictureBody | undefined
    if (picture === undefined || picture.bytes.length === 0) return yield* invalidBody("picture: choose an image file.")
    if (!isImageType(picture.contentType)) return yield* invalidBody("picture: must be a PNG, JPEG or WebP image.")
    const ticket = yield* uploads.createTicket({ owner: accountUploadOwner(accountId), purpose: profilePicturePurpose, contentType: picture.contentType })
    const record = yield* uploads.authorizeUpload(ticket.uploadId, ticket.formFields)
    yield* uploads.receive(record, picture.bytes)
    const { replaced } = yield* uploads.commitAccountPicture({ accountId, uploadId: ticket.uploadId })
    yield* uploads.discard(replaced)
  })

/**
 * Identity data (docs/api-notes/accounts-and-projects.md, docs/api-notes/credentials.md): the wire
 * shapes of accounts and credentials.
 */
import { Schema } from "effect"
import { BoundedString, Email } from "../shared/Bounds.js"
import { AccountId, ApiKeyId, ProjectId, ServiceKeyId, TotpFactorId, UploadId } from "../shared/Identifiers.js"
import { NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** An account: extra properties are allowed (docs/api-notes/accounts-and-projects.md). */
export const Account = Schema.StructWithRest(
  Schema.Struct({
    accountId: AccountId,
    createdAt: NullableTimestamp,
    deletedAt: NullableTimestamp,
    email: Email,
    firstName: Schema.NullOr(Schema.String),
    lastName: Schema.NullOr(Schema.String),
    phoneNumber: Schema.NullOr(Schema.String),
    phoneVerifiedAt: NullableTimestamp,
    pictureUrl: Schema.String.pipe(Schema.check(Schema.isPattern(/^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/u, { message: "must be a URI" }))),
    updatedAt: NullableTimestamp
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ identifier: "Account" })
export type Account = typeof Account.Type

/** An account service key: no extra properties (docs/api-notes/credentials.md). */
export const AccountServiceKey = Schema.Struct({
  serviceKeyId: ServiceKeyId,
  accountId: AccountId,
  name: Schema.String,
  createdAt: Timestamp,
  expiresAt: NullableTimestamp,
  revokedAt: NullableTimestamp
}).annotate({ identifier: "AccountServiceKey" }).pipe(noExcessKeys)
export type AccountServiceKey = typeof AccountServiceKey.Type

/** Key names: 1..128 characters (docs/api-notes/accounts-and-projects.md). */
export const KeyName = BoundedString(1, 128).annotate({ identifier: "KeyName" })

/**
 * `POST /v1/account/service-keys`: the expiry is explicit — `expiresAt` is required, and `null`
 * means never (docs/api-notes/accounts-and-projects.md). Whether it lies in the future is checked
 * by the service against the clock.
 */
export const CreateAccountServiceKeyRequest = Schema.Struct({
  name: KeyName,
  expiresAt: NullableTimestamp
}).annotate({ identifier: "CreateAccountServiceKeyRequest" }).pipe(noExcessKeys)

export const CreateAccountServiceKeyResponse = Schema.Struct({
  serviceKey: AccountServiceKey,
  secret: Schema.String
}).annotate({ identifier: "CreateAccountServiceKeyResponse" })

export const ListAccountServiceKeysResponse = Schema.Struct({
  serviceKeys: Schema.Array(AccountServiceKey)
}).annotate({ identifier: "ListAccountServiceKeysResponse" })

export const RevokeAccountServiceKeyResponse = Schema.Struct({
  serviceKey: AccountServiceKey
}).annotate({ identifier: "RevokeAccountServiceKeyResponse" })

/** The known project API key permissions (docs/api-notes/credentials.md). */
export const KnownPermission = Schema.Literals(["events:read", "events:write", "platforms:read", "platforms:write", "project:read", "project:write"])
export type KnownPermission = typeof KnownPermission.Type

/** A permission string: known values, plus any other value, which is preserved as sent. */
export const Permission = Schema.Union([KnownPermission, // docs/api-notes/credentials.md: unknown permission strings are preserved, not rejected — any visible ASCII, 1..64.
  Schema.String.pipe(Schema.check(Schema.isPattern(/^[\x21-\x7e]{1,64}$/u, { message: "must be 1-64 visible ASCII characters" })))]).annotate({ identifier: "Permission" })

/** A project API key: no extra properties; unknown permission values preserved. */
export const ProjectApiKey = Schema.Struct({
  apiKeyId: ApiKeyId,
  projectId: ProjectId,
  createdByAccountId: AccountId,
  name: Schema.String,
  createdAt: Timestamp,
  expiresAt: NullableTimestamp,
  permissionsUpdatedAt: NullableTimestamp,
  revokedAt: NullableTimestamp,
  // Known values and any other well-formed one, preserved as sent (docs/api-notes/credentials.md).
  permissions: Schema.Array(Permission)
}).annotate({ identifier: "ProjectApiKey" }).pipe(noExcessKeys)
export type ProjectApiKey = typeof ProjectApiKey.Type

/** The image types accepted for avatars and profile pictures. */
export const ImageContentType = Schema.Literals(["image/jpeg", "image/png", "image/webp"])
export type ImageContentType = typeof ImageContentType.Type

/** An avatar or profile-picture upload ticket (docs/api-notes/accounts-and-projects.md). */
export const UploadTicket = Schema.Struct({
  expiresAt: Timestamp,
  formFields: Schema.Record(Schema.String, Schema.String),
  uploadId: UploadId,
  uploadUrl: Schema.String.pipe(Schema.check(Schema.isPattern(/^https?:\/\/\S+$/u, { message: "must be an http(s) URI" })))
}).annotate({ identifier: "UploadTicket" })

/** The TOTP enrollment response (docs/api-notes/accounts-and-projects.md). */
export const TotpEnrollment = Schema.Struct({
  enrollmentToken: BoundedString(1, 4096),
  expiresAt: Timestamp,
  factorId: TotpFactorId,
  secret: BoundedString(1, 256),
  uri: BoundedString(1, 4096).pipe(
    Schema.check(Schema.isStartingWith("otpauth://", {
      title: `startsWith("otpauth://")`,
      description: `a string starting with "otpauth://"`
    }))
  )
}).annotate({ identifier: "TotpEnrollment" })

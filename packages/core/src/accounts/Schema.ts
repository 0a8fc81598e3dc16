/**
 * Identity data (SPEC.md § Account, § Account service key, § Project API key, § Other shapes;
 * API.md §1.2): the wire shapes of accounts and credentials.
 */
import { Schema } from "effect"
import { BoundedString, Email } from "../shared/Bounds.js"
import { AccountId, ApiKeyId, ProjectId, ServiceKeyId, TotpFactorId, UploadId } from "../shared/Identifiers.js"
import { NullableTimestamp, Timestamp } from "../shared/Timestamp.js"

/** An account: extra properties are allowed (SPEC.md § Account). */
export const Account = Schema.Struct(
  {
    accountId: AccountId,
    createdAt: NullableTimestamp,
    deletedAt: NullableTimestamp,
    email: Email,
    firstName: Schema.NullOr(Schema.String),
    lastName: Schema.NullOr(Schema.String),
    phoneNumber: Schema.NullOr(Schema.String),
    phoneVerifiedAt: NullableTimestamp,
    pictureUrl: Schema.String.pipe(Schema.pattern(/^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/, { message: () => "must be a URI" })),
    updatedAt: NullableTimestamp
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "Account" })
export type Account = typeof Account.Type

/** An account service key: no extra properties (SPEC.md § Account service key). */
export const AccountServiceKey = Schema.Struct({
  serviceKeyId: ServiceKeyId,
  accountId: AccountId,
  name: Schema.String,
  createdAt: Timestamp,
  expiresAt: NullableTimestamp,
  revokedAt: NullableTimestamp
}).annotations({ identifier: "AccountServiceKey", parseOptions: { onExcessProperty: "error" } })
export type AccountServiceKey = typeof AccountServiceKey.Type

/** Key names: 1..128 characters (API.md §1.2). */
export const KeyName = BoundedString(1, 128).annotations({ identifier: "KeyName" })

/**
 * `POST /v1/account/service-keys`: the expiry is explicit — `expiresAt` is required, and `null` means
 * never (API.md §1.2). Whether it lies in the future is checked by the service against the clock.
 */
export const CreateAccountServiceKeyRequest = Schema.Struct({
  name: KeyName,
  expiresAt: NullableTimestamp
}).annotations({ identifier: "CreateAccountServiceKeyRequest", parseOptions: { onExcessProperty: "error" } })

export const CreateAccountServiceKeyResponse = Schema.Struct({
  serviceKey: AccountServiceKey,
  secret: Schema.String
}).annotations({ identifier: "CreateAccountServiceKeyResponse" })

export const ListAccountServiceKeysResponse = Schema.Struct({
  serviceKeys: Schema.Array(AccountServiceKey)
}).annotations({ identifier: "ListAccountServiceKeysResponse" })

export const RevokeAccountServiceKeyResponse = Schema.Struct({
  serviceKey: AccountServiceKey
}).annotations({ identifier: "RevokeAccountServiceKeyResponse" })

/** The known project API key permissions (SPEC.md § Project API key). */
export const KnownPermission = Schema.Literal(
  "events:read", "events:write", "platforms:read", "platforms:write", "project:read", "project:write"
)
export type KnownPermission = typeof KnownPermission.Type

/** A permission string: known values, plus any other value, which is preserved as sent. */
export const Permission = Schema.Union(
  KnownPermission,
  // API.md §1.4: unknown permission strings are preserved, not rejected — any visible ASCII, 1..64.
  Schema.String.pipe(Schema.pattern(/^[\x21-\x7e]{1,64}$/, { message: () => "must be 1-64 visible ASCII characters" }))
).annotations({ identifier: "Permission" })

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
  // Known values and any other well-formed one, preserved as sent (SPEC.md § Project API key).
  permissions: Schema.Array(Permission)
}).annotations({ identifier: "ProjectApiKey", parseOptions: { onExcessProperty: "error" } })
export type ProjectApiKey = typeof ProjectApiKey.Type

/** The image types accepted for avatars and profile pictures. */
export const ImageContentType = Schema.Literal("image/jpeg", "image/png", "image/webp")
export type ImageContentType = typeof ImageContentType.Type

/** An avatar or profile-picture upload ticket (SPEC.md § Agent profile). */
export const UploadTicket = Schema.Struct({
  expiresAt: Timestamp,
  formFields: Schema.Record({ key: Schema.String, value: Schema.String }),
  uploadId: UploadId,
  uploadUrl: Schema.String.pipe(Schema.pattern(/^https?:\/\/\S+$/, { message: () => "must be an http(s) URI" }))
}).annotations({ identifier: "UploadTicket" })

/** The TOTP enrollment response (SPEC.md § Other shapes). */
export const TotpEnrollment = Schema.Struct({
  enrollmentToken: BoundedString(1, 4096),
  expiresAt: Timestamp,
  factorId: TotpFactorId,
  secret: BoundedString(1, 256),
  uri: BoundedString(1, 4096).pipe(Schema.startsWith("otpauth://"))
}).annotations({ identifier: "TotpEnrollment" })

/**
 * The identity schemas (docs/api-notes/accounts-and-projects.md, docs/api-notes/credentials.md):
 * accounts, keys, the upload ticket and the TOTP enrollment.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import {
  Account, AccountServiceKey, CreateAccountServiceKeyRequest, CreateAccountServiceKeyResponse, ImageContentType,
  KeyName, KnownPermission, ListAccountServiceKeysResponse, Permission, ProjectApiKey,
  RevokeAccountServiceKeyResponse, TotpEnrollment, UploadTicket
} from "../../src/accounts/Schema.js"
import { IdKinds } from "../../src/shared/Identifiers.js"
import { accepts, decode, projectIdFixture as projectId, rejects, rejectsExtra, requiresEach, roundTrips, typeId } from "./SchemaAssertions.js"

const at = "2030-01-01T00:00:00.000Z"
const later = "2030-02-01T12:30:00.000Z"

// ---------------------------------------------------------------------------------------------
// Account
// ---------------------------------------------------------------------------------------------

describe("Account", () => {
  const account = {
    accountId: typeId(IdKinds.account),
    createdAt: at,
    deletedAt: null,
    email: "ada@example.com",
    firstName: "Ada",
    lastName: null,
    phoneNumber: "+15551234567",
    phoneVerifiedAt: later,
    pictureUrl: "https://cdn.example.com/pictures/ada.png",
    updatedAt: later
  }

  it("decodes and round-trips an account", () => {
    roundTrips(Account, account)
  })

  it("accepts null for every nullable field", () => {
    roundTrips(Account, {
      ...account,
      createdAt: null,
      deletedAt: null,
      firstName: null,
      lastName: null,
      phoneNumber: null,
      phoneVerifiedAt: null,
      updatedAt: null
    })
  })

  it("accepts and keeps extra properties (extra properties are allowed)", () => {
    const withExtra = { ...account, organizationIds: ["x"], locale: "en" }
    expect(accepts(Account, withExtra)).toMatchObject({ organizationIds: ["x"], locale: "en" })
    expect(Result.isSuccess(decode(Account, withExtra, { onExcessProperty: "error" }))).toBe(true)
    roundTrips(Account, withExtra)
  })

  it("requires every field", () => {
    requiresEach(Account, account, Object.keys(account))
  })

  it("rejects a bad email (255 characters, no @), a non-URI picture, another id kind, an offset timestamp", () => {
    rejects(Account, { ...account, email: `${"a".repeat(243)}@example.com` })
    accepts(Account, { ...account, email: `${"a".repeat(242)}@example.com` })
    rejects(Account, { ...account, email: "ada.example.com" })
    rejects(Account, { ...account, pictureUrl: "not a uri" })
    rejects(Account, { ...account, pictureUrl: "/relative/path.png" })
    rejects(Account, { ...account, accountId: typeId(IdKinds.organization) })
    rejects(Account, { ...account, createdAt: "2030-01-01T00:00:00+00:00" })
    rejects(Account, { ...account, deletedAt: "2030-02-30T00:00:00Z" })
  })
})

// ---------------------------------------------------------------------------------------------
// Account service keys
// ---------------------------------------------------------------------------------------------

describe("AccountServiceKey", () => {
  const key = {
    serviceKeyId: typeId(IdKinds.accountServiceKey),
    accountId: typeId(IdKinds.account),
    name: "CI deploys",
    createdAt: at,
    expiresAt: later,
    revokedAt: null
  }

  it("decodes and round-trips a key, with or without expiry and revocation", () => {
    roundTrips(AccountServiceKey, key)
    roundTrips(AccountServiceKey, { ...key, expiresAt: null, revokedAt: later })
  })

  it("rejects extra properties, through its parseOptions annotation alone", () => {
    rejectsExtra(AccountServiceKey, key)
  })

  it("requires every field; createdAt is not nullable", () => {
    requiresEach(AccountServiceKey, key, Object.keys(key))
    rejects(AccountServiceKey, { ...key, createdAt: null })
    rejects(AccountServiceKey, { ...key, serviceKeyId: typeId(IdKinds.projectApiKey) })
  })

  it("rejects extra properties of a key nested in a response", () => {
    roundTrips(ListAccountServiceKeysResponse, { serviceKeys: [key] })
    rejects(ListAccountServiceKeysResponse, { serviceKeys: [{ ...key, secret: "leak" }] })
    roundTrips(RevokeAccountServiceKeyResponse, { serviceKey: { ...key, revokedAt: later } })
    roundTrips(CreateAccountServiceKeyResponse, { serviceKey: key, secret: "sb_ask_x_y" })
    rejects(CreateAccountServiceKeyResponse, { serviceKey: key })
  })
})

describe("CreateAccountServiceKeyRequest", () => {
  it("decodes and round-trips a name with an explicit expiry or null", () => {
    roundTrips(CreateAccountServiceKeyRequest, { name: "CI", expiresAt: "2031-01-01T00:00:00.000Z" })
    roundTrips(CreateAccountServiceKeyRequest, { name: "CI", expiresAt: null })
  })

  it("requires the expiry key (docs/api-notes/accounts-and-projects.md: the expiry is explicit)", () => {
    rejects(CreateAccountServiceKeyRequest, { name: "CI" })
  })

  it("name: 1 and 128 characters ok, 0 and 129 rejected", () => {
    accepts(CreateAccountServiceKeyRequest, { name: "a", expiresAt: null })
    accepts(CreateAccountServiceKeyRequest, { name: "a".repeat(128), expiresAt: null })
    rejects(CreateAccountServiceKeyRequest, { name: "", expiresAt: null })
    rejects(CreateAccountServiceKeyRequest, { name: "a".repeat(129), expiresAt: null })
    roundTrips(KeyName, "a".repeat(128))
    rejects(KeyName, "a".repeat(129))
  })

  it("rejects extra properties and a non-UTC expiry", () => {
    rejectsExtra(CreateAccountServiceKeyRequest, { name: "CI", expiresAt: null })
    rejects(CreateAccountServiceKeyRequest, { name: "CI", expiresAt: "2031-01-01T00:00:00+02:00" })
    rejects(CreateAccountServiceKeyRequest, { name: "CI", expiresAt: "2031-01-01T00:00:00z" })
  })
})

// ---------------------------------------------------------------------------------------------
// Project API keys and permissions
// ---------------------------------------------------------------------------------------------

describe("ProjectApiKey", () => {
  const apiKey = {
    apiKeyId: typeId(IdKinds.projectApiKey),
    projectId,
    createdByAccountId: typeId(IdKinds.account),
    name: "Example key",
    createdAt: at,
    expiresAt: null,
    permissionsUpdatedAt: null,
    revokedAt: null,
    permissions: ["project:read", "events:write"]
  }

  it("decodes and round-trips a key", () => {
    roundTrips(ProjectApiKey, apiKey)
    roundTrips(ProjectApiKey, { ...apiKey, expiresAt: later, permissionsUpdatedAt: later, revokedAt: later, permissions: [] })
  })

  it("preserves unknown permission values as sent", () => {
    const withUnknown = { ...apiKey, permissions: ["project:read", "billing:read", "calls:dial"] }
    expect(accepts(ProjectApiKey, withUnknown).permissions).toStrictEqual(["project:read", "billing:read", "calls:dial"])
    roundTrips(ProjectApiKey, withUnknown)
  })

  it("rejects extra properties, through its parseOptions annotation alone", () => {
    rejectsExtra(ProjectApiKey, apiKey)
  })

  it("requires every field and a UUIDv7 project id", () => {
    requiresEach(ProjectApiKey, apiKey, Object.keys(apiKey))
    rejects(ProjectApiKey, { ...apiKey, projectId: "6ba7b810-9dad-41d1-80b4-00c04fd430c8" })
    rejects(ProjectApiKey, { ...apiKey, permissions: "project:read" })
    rejects(ProjectApiKey, { ...apiKey, permissions: [1] })
  })
})

describe("Permission", () => {
  const known = ["events:read", "events:write", "platforms:read", "platforms:write", "project:read", "project:write"]

  it.each(known)("accepts the known permission %s", (p) => {
    roundTrips(KnownPermission, p)
    roundTrips(Permission, p)
  })

  it("KnownPermission rejects other values; Permission keeps well-formed unknown ones", () => {
    rejects(KnownPermission, "billing:read")
    roundTrips(Permission, "billing:read")
  })

  it("Permission: unknown values are preserved (docs/api-notes/credentials.md); 64 characters ok, 65, empty or non-visible rejected", () => {
    const at64 = `${"a".repeat(31)}:${"b".repeat(32)}`
    expect(at64).toHaveLength(64)
    roundTrips(Permission, at64)
    for (const unknown of ["admin", "Project:Read", "project:", "calls:listen"]) roundTrips(Permission, unknown)
    rejects(Permission, `${at64}b`)
    rejects(Permission, "")
    rejects(Permission, "has space")
    rejects(Permission, "caf\u00e9:read")
  })
})

// ---------------------------------------------------------------------------------------------
// Uploads and TOTP
// ---------------------------------------------------------------------------------------------

describe("ImageContentType", () => {
  it.each(["image/jpeg", "image/png", "image/webp"])("accepts %s", (t) => {
    roundTrips(ImageContentType, t)
  })

  it("rejects other types", () => {
    rejects(ImageContentType, "image/gif")
    rejects(ImageContentType, "IMAGE/PNG")
  })
})

describe("UploadTicket", () => {
  const ticket = {
    expiresAt: at,
    formFields: { policy: "eyJ9", signature: "abc" },
    uploadId: `sb_upl_${"k".repeat(26)}`,
    uploadUrl: "https://api.example.com/v1/uploads/sb_upl_kkkkkkkkkkkkkkkkkkkkkkkkkk"
  }

  it("decodes and round-trips a ticket", () => {
    roundTrips(UploadTicket, ticket)
    roundTrips(UploadTicket, { ...ticket, formFields: {} })
  })

  it("rejects non-string form fields, a non-http(s) URL, a bad upload id and an offset expiry", () => {
    rejects(UploadTicket, { ...ticket, formFields: { size: 5 } })
    rejects(UploadTicket, { ...ticket, uploadUrl: "ftp://example.com/x" })
    rejects(UploadTicket, { ...ticket, uploadId: "sb_upl_short" })
    rejects(UploadTicket, { ...ticket, expiresAt: "2030-01-01T00:00:00+00:00" })
    requiresEach(UploadTicket, ticket, Object.keys(ticket))
  })
})

describe("TotpEnrollment", () => {
  const enrollment = {
    enrollmentToken: "tok_123",
    expiresAt: at,
    factorId: "auth_factor_01ABCdef",
    secret: "JBSWY3DPEHPK3PXP",
    uri: "otpauth://totp/Switchboard:ada@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Switchboard"
  }

  it("decodes and round-trips an enrollment", () => {
    roundTrips(TotpEnrollment, enrollment)
  })

  it("enrollmentToken: 1 and 4096 ok, 0 and 4097 rejected", () => {
    accepts(TotpEnrollment, { ...enrollment, enrollmentToken: "t" })
    accepts(TotpEnrollment, { ...enrollment, enrollmentToken: "t".repeat(4096) })
    rejects(TotpEnrollment, { ...enrollment, enrollmentToken: "" })
    rejects(TotpEnrollment, { ...enrollment, enrollmentToken: "t".repeat(4097) })
  })

  it("secret: 1 and 256 ok, 0 and 257 rejected", () => {
    accepts(TotpEnrollment, { ...enrollment, secret: "S" })
    accepts(TotpEnrollment, { ...enrollment, secret: "S".repeat(256) })
    rejects(TotpEnrollment, { ...enrollment, secret: "" })
    rejects(TotpEnrollment, { ...enrollment, secret: "S".repeat(257) })
  })

  it("uri: begins with otpauth://, 4096 ok, 4097 rejected", () => {
    const base = "otpauth://totp/x?secret="
    accepts(TotpEnrollment, { ...enrollment, uri: base + "A".repeat(4096 - base.length) })
    rejects(TotpEnrollment, { ...enrollment, uri: base + "A".repeat(4097 - base.length) })
    rejects(TotpEnrollment, { ...enrollment, uri: "https://example.com/totp" })
  })

  it("rejects a malformed factor id", () => {
    rejects(TotpEnrollment, { ...enrollment, factorId: "factor_01" })
  })
})

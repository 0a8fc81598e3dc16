/**
 * The shared schemas: timestamps, integer and string bounds, identifiers (and the Ids service that
 * makes them).
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Result, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { BoundedString, Email, MAX_SAFE, NonNegativeSafeInt, PositiveSafeInt, SafeInt } from "../../src/shared/Bounds.js"
import {
  AccountId, ApiKeyId, BillingOperationId, CallId, EventId, formatTypeId, formatUuid, type IdKind, IdKinds,
  InvitationToken, ManagementProjectId, MessageId, OrganizationId, ProjectId, RequestId, ServiceKeyId, SVC,
  TotpFactorId, typeIdPattern, UploadId, UserId, uuidv7Bytes, VoiceProfileId
} from "../../src/shared/Identifiers.js"
import { Ids } from "../../src/shared/Ids.js"
import { Secrets } from "../../src/shared/Secrets.js"
import { NullableTimestamp, Timestamp, TimestampString } from "../../src/shared/Timestamp.js"
import { accepts, decode, rejects, roundTrips, T0 } from "./SchemaAssertions.js"

const RANDOM = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
const typeId = (kind: IdKind, ms = T0, random: Uint8Array = RANDOM) => formatTypeId(kind, uuidv7Bytes(ms, random))

// ---------------------------------------------------------------------------------------------
// Timestamp (docs/api-notes/requests.md: <timestamp>)
// ---------------------------------------------------------------------------------------------

describe("Timestamp", () => {
  it("decodes a UTC timestamp to a DateTime", () => {
    const dt = accepts(Timestamp, "2030-01-01T00:00:00Z")
    expect(DateTime.isDateTime(dt)).toBe(true)
    expect(DateTime.toEpochMillis(dt)).toBe(T0)
  })

  it("round-trips the canonical form", () => {
    roundTrips(Timestamp, "2030-01-02T03:04:05.678Z")
  })

  it("encodes any accepted form to the canonical YYYY-MM-DDTHH:mm:ss.SSSZ", () => {
    const dt = accepts(Timestamp, "2030-01-02T03:04:05.6Z")
    expect(Schema.encodeSync(Timestamp)(dt)).toBe("2030-01-02T03:04:05.600Z")
  })

  it("accepts a fraction of 1 to 9 digits and rejects 10", () => {
    accepts(Timestamp, "2030-01-01T00:00:00.1Z")
    accepts(Timestamp, "2030-01-01T00:00:00.123456789Z")
    rejects(Timestamp, "2030-01-01T00:00:00.1234567890Z")
  })

  it("accepts Feb 29 of a leap year (2024, 2000) and the last second of a day", () => {
    accepts(Timestamp, "2024-02-29T00:00:00Z")
    accepts(Timestamp, "2000-02-29T00:00:00Z")
    accepts(Timestamp, "2030-12-31T23:59:59.999Z")
  })

  it.each([
    ["an offset", "2030-01-01T00:00:00+00:00"],
    ["a negative offset", "2030-01-01T00:00:00-05:00"],
    ["a lower-case z", "2030-01-01T00:00:00z"],
    ["a lower-case t", "2030-01-01t00:00:00Z"],
    ["a space for T", "2030-01-01 00:00:00Z"],
    ["no zone", "2030-01-01T00:00:00"],
    ["no seconds", "2030-01-01T00:00Z"],
    ["Feb 30", "2030-02-30T00:00:00Z"],
    ["Feb 29 of a common year", "2023-02-29T00:00:00Z"],
    ["Feb 29 of a century year", "2100-02-29T00:00:00Z"],
    ["April 31", "2030-04-31T00:00:00Z"],
    ["month 13", "2030-13-01T00:00:00Z"],
    ["month 00", "2030-00-01T00:00:00Z"],
    ["day 00", "2030-01-00T00:00:00Z"],
    ["hour 24", "2030-01-01T24:00:00Z"],
    ["minute 60", "2030-01-01T00:60:00Z"],
    ["second 60", "2030-01-01T00:00:60Z"],
    ["year 0000", "0000-01-01T00:00:00Z"],
    ["a date only", "2030-01-01"],
    ["an empty string", ""]
  ])("rejects %s", (_, input) => {
    rejects(Timestamp, input)
    rejects(TimestampString, input)
  })

  it("rejects a non-string", () => {
    rejects(Timestamp, T0)
    rejects(Timestamp, null)
  })

  // From year 100: parseTimestamp builds the instant with Date.UTC, which reads years 0-99 as
  // 1900-1999 (reported; Timestamp.ts is not ours to change).
  it("every instant from year 100 to 9999 round-trips through its ISO form", () => {
    fc.assert(fc.property(fc.integer({ min: Date.parse("0100-01-01T00:00:00.000Z"), max: Date.parse("9999-12-31T23:59:59.999Z") }), (ms) => {
      const iso = new Date(ms).toISOString()
      expect(accepts(Timestamp, iso).epochMilliseconds).toBe(ms)
      roundTrips(Timestamp, iso)
    }))
  })

  it("TimestampString keeps the string as sent", () => {
    expect(accepts(TimestampString, "2030-01-01T00:00:00Z")).toBe("2030-01-01T00:00:00Z")
  })

  it("NullableTimestamp accepts null and a timestamp", () => {
    roundTrips(NullableTimestamp, null)
    roundTrips(NullableTimestamp, "2030-01-01T00:00:00.000Z")
    rejects(NullableTimestamp, "2030-01-01T00:00:00+01:00")
    rejects(NullableTimestamp, undefined)
  })
})

// ---------------------------------------------------------------------------------------------
// Bounds (docs/api-notes/requests.md)
// ---------------------------------------------------------------------------------------------

describe("Bounds", () => {
  it("MAX_SAFE is 9007199254740991", () => {
    expect(MAX_SAFE).toBe(9007199254740991)
  })

  it("SafeInt: ±9007199254740991 ok, ±9007199254740992 rejected", () => {
    roundTrips(SafeInt, 9007199254740991)
    roundTrips(SafeInt, -9007199254740991)
    roundTrips(SafeInt, 0)
    rejects(SafeInt, 9007199254740992)
    rejects(SafeInt, -9007199254740992)
  })

  it.each([["a fraction", 1.5], ["a string", "1"], ["NaN", Number.NaN], ["Infinity", Number.POSITIVE_INFINITY]])(
    "SafeInt rejects %s",
    (_, input) => {
      rejects(SafeInt, input)
    }
  )

  it("NonNegativeSafeInt: 0 and 9007199254740991 ok, -1 and 9007199254740992 rejected", () => {
    roundTrips(NonNegativeSafeInt, 0)
    roundTrips(NonNegativeSafeInt, 9007199254740991)
    rejects(NonNegativeSafeInt, -1)
    rejects(NonNegativeSafeInt, 9007199254740992)
  })

  it("PositiveSafeInt: 1 and 9007199254740991 ok, 0 and 9007199254740992 rejected", () => {
    roundTrips(PositiveSafeInt, 1)
    roundTrips(PositiveSafeInt, 9007199254740991)
    rejects(PositiveSafeInt, 0)
    rejects(PositiveSafeInt, 9007199254740992)
  })

  it("BoundedString(2, 4): 2 and 4 ok, 1 and 5 rejected", () => {
    const S = BoundedString(2, 4)
    roundTrips(S, "ab")
    roundTrips(S, "abcd")
    rejects(S, "a")
    rejects(S, "abcde")
  })

  it("Email: 254 characters ok, 255 rejected", () => {
    const at254 = `${"a".repeat(254 - "@example.com".length)}@example.com`
    expect(at254).toHaveLength(254)
    roundTrips(Email, at254)
    rejects(Email, `a${at254}`)
  })

  it.each([
    ["no @", "user.example.com"],
    ["a leading dot", ".user@example.com"],
    ["two dots in a row", "us..er@example.com"],
    ["an empty domain label", "user@example..com"],
    ["a trailing dot", "user@example.com."],
    ["a domain label starting with a hyphen", "user@-example.com"],
    ["a domain label ending with a hyphen", "user@example-.com"],
    ["a 64-character domain label", `user@${"d".repeat(64)}.com`],
    ["a space", "us er@example.com"]
  ])("Email rejects %s", (_, input) => {
    rejects(Email, input)
  })

  it("Email accepts plus addressing, sub-domains, 63-character labels and a single-label domain", () => {
    roundTrips(Email, "first.last+tag@mail.example.co.uk")
    roundTrips(Email, `user@${"d".repeat(63)}.com`)
    roundTrips(Email, "admin@localhost")
  })
})

// ---------------------------------------------------------------------------------------------
// Identifiers (docs/architecture.md#d4-identifiers)
// ---------------------------------------------------------------------------------------------

const typeIdSchemas: ReadonlyArray<readonly [string, Schema.Codec<any, string>, IdKind]> = [
  ["AccountId", AccountId, IdKinds.account],
  ["ServiceKeyId", ServiceKeyId, IdKinds.accountServiceKey],
  ["ApiKeyId", ApiKeyId, IdKinds.projectApiKey],
  ["OrganizationId", OrganizationId, IdKinds.organization],
  ["CallId", CallId, IdKinds.call],
  ["EventId", EventId, IdKinds.event],
  ["MessageId", MessageId, IdKinds.message],
  ["UserId", UserId, IdKinds.user],
  ["VoiceProfileId", VoiceProfileId, IdKinds.voiceProfile],
  ["BillingOperationId", BillingOperationId, IdKinds.billingOperation],
  ["RequestId", RequestId, IdKinds.request]
]

describe("TypeId schemas", () => {
  it("the service prefix is sb", () => {
    expect(SVC).toBe("sb")
  })

  it("CallId is sb_call_ then [0-7] and 25 Crockford characters (26 after the prefix)", () => {
    const id = typeId(IdKinds.call)
    expect(id).toMatch(/^sb_call_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
    roundTrips(CallId, id)
  })

  describe.each(typeIdSchemas)("%s", (_, schema, kind) => {
    const valid = typeId(kind)
    const prefix = `${SVC}_${kind}_`
    const suffix = valid.slice(prefix.length)

    it("decodes and round-trips a generated id", () => {
      roundTrips(schema, valid)
    })

    it("accepts the smallest and the largest suffix", () => {
      accepts(schema, `${prefix}${"0".repeat(26)}`)
      accepts(schema, `${prefix}7${"z".repeat(25)}`)
    })

    it("rejects a 25- and a 27-character suffix", () => {
      rejects(schema, `${prefix}${suffix.slice(0, 25)}`)
      rejects(schema, `${prefix}${suffix}0`)
    })

    it("rejects a first character above 7", () => {
      rejects(schema, `${prefix}8${suffix.slice(1)}`)
    })

    it.each(["i", "l", "o", "u"])("rejects the excluded letter %s", (letter) => {
      rejects(schema, `${prefix}${suffix.slice(0, 25)}${letter}`)
    })

    it("rejects upper case, another service prefix and another kind", () => {
      rejects(schema, `${prefix}${suffix.toUpperCase()}`)
      rejects(schema, `pho_${kind}_${suffix}`)
      rejects(schema, `${SVC}_zzz_${suffix}`)
    })
  })

  const kinds = typeIdSchemas.map(([, , kind]) => kind)

  it("a generated TypeId always matches its own schema", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.uint8Array({ minLength: 10, maxLength: 10 }), fc.integer({ min: 0, max: typeIdSchemas.length - 1 }), (ms, random, index) => {
      const [, schema, kind] = typeIdSchemas[index]!
      const id = formatTypeId(kind, uuidv7Bytes(ms, random))
      expect(id).toMatch(typeIdPattern(kind))
      expect(Result.isSuccess(decode(schema, id))).toBe(true)
      // Only its own kind: every other kind's schema refuses it.
      for (const other of kinds) {
        if (other !== kind) expect(typeIdPattern(other).test(id)).toBe(false)
      }
    }))
  })

  it("TypeIds sort by their time (UUIDv7 in base32 keeps the order)", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 48 - 2 }), fc.uint8Array({ minLength: 10, maxLength: 10 }), (ms, random) => {
      expect(typeId(IdKinds.event, ms, random) < typeId(IdKinds.event, ms + 1, random)).toBe(true)
    }))
  })
})

describe("ProjectId", () => {
  it("decodes and round-trips a lower-case UUIDv7", () => {
    roundTrips(ProjectId, "01890a5d-ac96-774b-bcce-b302099a8057")
  })

  it("rejects another version, upper case, a bad variant and a TypeID", () => {
    rejects(ProjectId, "01890a5d-ac96-474b-bcce-b302099a8057")
    rejects(ProjectId, "01890A5D-AC96-774B-BCCE-B302099A8057")
    rejects(ProjectId, "01890a5d-ac96-774b-7cce-b302099a8057")
    rejects(ProjectId, typeId(IdKinds.organization))
  })

  it("a generated UUIDv7 always matches ProjectId and ManagementProjectId", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.uint8Array({ minLength: 10, maxLength: 10 }), (ms, random) => {
      const id = formatUuid(uuidv7Bytes(ms, random))
      expect(Result.isSuccess(decode(ProjectId, id))).toBe(true)
      expect(Result.isSuccess(decode(ManagementProjectId, id))).toBe(true)
    }))
  })
})

describe("ManagementProjectId", () => {
  it.each(["1", "2", "3", "4", "5", "6", "7", "8"])("accepts UUID version %s", (version) => {
    roundTrips(ManagementProjectId, `6ba7b810-9dad-${version}1d1-80b4-00c04fd430c8`)
  })

  it.each(["8", "9", "a", "b", "A", "B"])("accepts variant %s", (variant) => {
    accepts(ManagementProjectId, `6ba7b810-9dad-41d1-${variant}0b4-00c04fd430c8`)
  })

  it("accepts the all-zero and all-f UUIDs and upper case", () => {
    accepts(ManagementProjectId, "00000000-0000-0000-0000-000000000000")
    accepts(ManagementProjectId, "ffffffff-ffff-ffff-ffff-ffffffffffff")
    accepts(ManagementProjectId, "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")
  })

  it("rejects versions 0 and 9, variant c, and a malformed UUID", () => {
    rejects(ManagementProjectId, "6ba7b810-9dad-01d1-80b4-00c04fd430c8")
    rejects(ManagementProjectId, "6ba7b810-9dad-91d1-80b4-00c04fd430c8")
    rejects(ManagementProjectId, "6ba7b810-9dad-41d1-c0b4-00c04fd430c8")
    rejects(ManagementProjectId, "6ba7b8109dad41d180b400c04fd430c8")
  })
})

describe("UploadId", () => {
  const valid = `sb_upl_${"a0".repeat(13)}`

  it("decodes sb_upl_ + 26 of [0-9a-z] (letters i, l, o, u included)", () => {
    roundTrips(UploadId, valid)
    accepts(UploadId, `sb_upl_${"ilou".repeat(6)}zz`)
  })

  it("rejects 25 and 27 characters, upper case and another prefix", () => {
    rejects(UploadId, valid.slice(0, -1))
    rejects(UploadId, `${valid}a`)
    rejects(UploadId, valid.toUpperCase())
    rejects(UploadId, `pho_upl_${"a0".repeat(13)}`)
  })
})

describe("TotpFactorId", () => {
  const prefix = "auth_factor_"

  it("accepts 128 characters in all, rejects 129", () => {
    const at128 = `${prefix}${"A1b".repeat(50)}`.slice(0, 128)
    expect(at128).toHaveLength(128)
    roundTrips(TotpFactorId, at128)
    rejects(TotpFactorId, `${at128}x`)
  })

  it("rejects an empty tail, non-alphanumerics and another prefix", () => {
    rejects(TotpFactorId, prefix)
    rejects(TotpFactorId, `${prefix}ab-c`)
    rejects(TotpFactorId, "auth_fact_abc")
  })
})

describe("InvitationToken", () => {
  const valid = `${"Ab3_-".repeat(8)}xyz`

  it("accepts exactly 43 characters of [A-Za-z0-9_-]", () => {
    expect(valid).toHaveLength(43)
    roundTrips(InvitationToken, valid)
  })

  it("rejects 42 and 44 characters and other characters", () => {
    rejects(InvitationToken, valid.slice(1))
    rejects(InvitationToken, `${valid}a`)
    rejects(InvitationToken, `${valid.slice(1)}+`)
    rejects(InvitationToken, `${valid.slice(1)}=`)
  })
})

describe("Ids service", () => {
  const SeededSecrets = Layer.succeed(Secrets, {
    randomBytes: (n) => Effect.succeed(Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) % 256))
  })
  const IdsTest = Ids.layer.pipe(Layer.provide(SeededSecrets))

  it.effect("generates ids that match their schemas, stamped with the clock's time", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const ids = yield* Ids
      const callId = accepts(CallId, yield* ids.typeId(IdKinds.call))
      const projectId = accepts(ProjectId, yield* ids.uuidv7())
      accepts(UploadId, yield* ids.uploadId())
      // The first 48 bits of a UUIDv7 are its Unix milliseconds.
      expect(Number.parseInt(projectId.replace(/-/g, "").slice(0, 12), 16)).toBe(T0)
      expect(callId).toBe(typeId(IdKinds.call, T0, Uint8Array.from({ length: 10 }, (_, i) => (i * 37 + 11) % 256)))
    }).pipe(Effect.provide(IdsTest)))
})

/** Store fixtures shared by the contract suites and tests. */
import { type AccountRecord } from "@switchboard/core/accounts"
import { AccountId, formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime } from "effect"

let counter = 0
const T0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z") as DateTime.Utc

/** A fresh account record with a unique email; ids are time-ordered by `createdAt`. */
export const accountFixture = (overrides: Partial<AccountRecord> = {}): AccountRecord => {
  counter += 1
  const createdAt = overrides.createdAt ?? T0
  return {
    accountId: AccountId.make(formatTypeId(IdKinds.account, uuidv7Bytes(DateTime.toEpochMillis(createdAt), crypto.getRandomValues(new Uint8Array(10))))),
    email: `user${counter}.${Date.now()}@example.com`,
    firstName: null,
    lastName: null,
    phoneNumber: null,
    phoneVerifiedAt: null,
    pictureUrl: null,
    passwordHash: null,
    createdAt,
    updatedAt: createdAt,
    deletedAt: null,
    ...overrides
  }
}

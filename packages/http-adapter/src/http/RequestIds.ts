/**
 * Request and trace ids for every response, made without an effect: a UUIDv7 from the wall clock and
 * 10 random bytes cut from a pooled CSPRNG buffer (core's `makeRandomPool`, as `SecretsLive` uses).
 * These ids correlate logs; they are not secrets, and tests need not seed them.
 */
import { formatTypeId, hexOf, IdKinds, makeRandomPool, uuidv7Bytes } from "@switchboard/core/shared"

const random = makeRandomPool()

/** A new `sb_req_…` id. */
export const newRequestId = (): string => formatTypeId(IdKinds.request, uuidv7Bytes(Date.now(), random(10)))

/** A new W3C trace id: 32 hex digits, time-ordered, never all zero. */
export const newTraceId = (): string => hexOf(uuidv7Bytes(Date.now(), random(10)))

/**
 * Request and trace ids for every response, made without an effect: a UUIDv7 from the wall clock and
 * 10 random bytes from a pooled CSPRNG buffer (one `randomFillSync` per 409 ids instead of one per
 * id — the pattern of Node's own `randomUUID` cache). These ids correlate logs; they are not secrets.
 */
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core"
import { randomFillSync } from "node:crypto"

const POOL = 4096
const pool = new Uint8Array(POOL)
let offset = POOL

const random10 = (): Uint8Array => {
  if (offset + 10 > POOL) {
    randomFillSync(pool)
    offset = 0
  }
  const out = pool.subarray(offset, offset + 10)
  offset += 10
  return out
}

const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"))

/** A new `sb_req_…` id. */
export const newRequestId = (): string => formatTypeId(IdKinds.request, uuidv7Bytes(Date.now(), random10()))

/** A new W3C trace id: 32 hex digits, time-ordered, never all zero. */
export const newTraceId = (): string => {
  const b = uuidv7Bytes(Date.now(), random10())
  let out = ""
  for (let i = 0; i < 16; i++) out += hex[b[i]!]
  return out
}

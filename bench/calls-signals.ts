/**
 * What `calls.ts`, its load child (`calls-sender.ts`) and `profile-calls.ts` share: one whole call
 * in wire form (started, ringing, answered, connected, `PRESSES` key presses, ended).
 */
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"

export const PRESSES = 20
export const SIGNALS_PER_CALL = 5 + PRESSES
export const CALLS_PER_BATCH = 4
export const BATCH = CALLS_PER_BATCH * SIGNALS_PER_CALL

const rand = () => crypto.getRandomValues(new Uint8Array(10))
const DIGITS = "0123456789*#"

let callCounter = 0

/** One whole call's signals (fresh ids), in wire form. */
export const wholeCall = (projectId: string, profileId: string): ReadonlyArray<Record<string, unknown>> => {
  const base = Date.UTC(2031, 0, 1) + ++callCounter * 60_000
  const callId = formatTypeId(IdKinds.call, uuidv7Bytes(base, rand()))
  const caller = formatTypeId(IdKinds.user, uuidv7Bytes(base, rand()))
  const at = (ms: number) => new Date(base + ms).toISOString()
  const sig = (n: number, type: string, ms: number, data: unknown = {}) => ({ id: `${callId}-${n}`, callId, type, timestamp: at(ms), data })
  return [
    sig(0, "started", 0, {
      projectId,
      direction: "inbound",
      voiceProfile: { id: profileId, endpoint: { type: "sip" } },
      space: { id: `space-${callId}`, type: "direct" },
      caller: { id: caller, handle: "+15550100" },
      callee: { id: formatTypeId(IdKinds.user, uuidv7Bytes(base, rand())), handle: "+12015550100" },
      metadata: {}
    }),
    sig(1, "ringing", 1000),
    sig(2, "answered", 2000),
    sig(3, "connected", 3000),
    ...Array.from({ length: PRESSES }, (_, i) => sig(4 + i, "dtmf", 4000 + i * 100, { digit: DIGITS[i % 12], actorId: caller })),
    sig(4 + PRESSES, "ended", 30_000, { status: "completed", reason: { hangupCause: "normal_clearing" } })
  ]
}

/** A batch of `CALLS_PER_BATCH` whole calls, in wire form. */
export const wholeBatch = (projectId: string, profileId: string) =>
  Array.from({ length: CALLS_PER_BATCH }, () => wholeCall(projectId, profileId)).flat()

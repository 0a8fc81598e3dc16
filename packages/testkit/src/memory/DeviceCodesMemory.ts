/**
 * Device codes (RFC 8628; core oauth/DeviceCodes.ts) in memory: a table of the shared
 * `MemoryState` keyed by the device code's hash. Every operation is one synchronous step, so
 * "decide once" and "consume once" are atomic, as in the SQL layer.
 */
import { type DeviceCodeRecord, DeviceCodesRepo, SLOW_DOWN_SECONDS } from "@switchboard/core/oauth"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const codes = state.table<string, DeviceCodeRecord>("device_codes")
  const byUserCode = (userCodeHash: string) => [...codes.values()].find((c) => c.userCodeHash === userCodeHash)

  return DeviceCodesRepo.of({
    insert: (code) =>
      Effect.sync(() => {
        if (byUserCode(code.userCodeHash) !== undefined || codes.has(code.deviceCodeHash)) return false
        codes.set(code.deviceCodeHash, code)
        return true
      }),
    findByUserCode: (userCodeHash) => Effect.sync(() => Option.fromNullishOr(byUserCode(userCodeHash))),
    decide: ({ decision, now, userCodeHash }) =>
      Effect.sync(() => {
        const code = byUserCode(userCodeHash)
        if (code === undefined || code.status !== "pending" || !DateTime.isGreaterThan(code.expiresAt, now)) return false
        codes.set(
          code.deviceCodeHash,
          decision._tag === "Approve"
            ? { ...code, status: "approved", accountId: decision.accountId, grantId: decision.grantId, authTime: decision.authTime }
            : { ...code, status: "denied", accountId: decision.accountId }
        )
        return true
      }),
    poll: ({ deviceCodeHash, now }) =>
      Effect.sync(() => {
        const code = codes.get(deviceCodeHash)
        if (code === undefined) return Option.none()
        const slowDown = code.status === "pending" && code.lastPolledAt !== null &&
          DateTime.toEpochMillis(now) - DateTime.toEpochMillis(code.lastPolledAt) < code.intervalSeconds * 1000
        codes.set(deviceCodeHash, {
          ...code,
          lastPolledAt: now,
          intervalSeconds: slowDown ? code.intervalSeconds + SLOW_DOWN_SECONDS : code.intervalSeconds
        })
        return Option.some({ code, slowDown })
      }),
    consume: ({ deviceCodeHash }) =>
      Effect.sync(() => {
        const code = codes.get(deviceCodeHash)
        if (code === undefined || code.status !== "approved") return false
        codes.set(deviceCodeHash, { ...code, status: "consumed" })
        return true
      }),
    sweep: ({ before }) =>
      Effect.sync(() => {
        let n = 0
        for (const [hash, c] of codes) {
          if (!DateTime.isGreaterThan(c.expiresAt, before)) {
            codes.delete(hash)
            n++
          }
        }
        return n
      })
  })
})

export const DeviceCodesMemory: Layer.Layer<DeviceCodesRepo, never, MemoryState> = Layer.effect(DeviceCodesRepo, make)

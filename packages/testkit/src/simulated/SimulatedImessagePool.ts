/**
 * A deterministic simulated `ImessagePool` (core's port): the standalone server ships it, tests use it.
 *
 * - Dedicated lines: `dedicatedCapacity` lines (0 = none free, so provisioning waits), numbered
 *   `+1 628 555 03xx` in order, returned ones first; a test (or the server's operator) can add
 *   capacity later with `addDedicatedCapacity`, and the waiting operations are then served in order.
 * - Shared lines: `sharedLines` lines of `seatsPerSharedLine` seats each, numbered
 *   `+1 628 555 02xx`; when all are full the pool adds a line only for a project with auto-scale on,
 *   up to `maxSharedLines`.
 *
 * Settings make it slow (`delayMs`) or fail (`fail`), like the other simulated providers. State is
 * per process.
 */
import { Effect, Layer, Option } from "effect"
import { ImessagePool, ProviderFailure } from "@switchboard/core/platforms"

export interface SimulatedImessageSettings {
  readonly delayMs: number
  readonly fail: "never" | "transient" | "permanent"
  /** Dedicated lines available at start (at most 100). */
  readonly dedicatedCapacity: number
  readonly sharedLines: number
  readonly seatsPerSharedLine: number
  /** How many shared lines auto-scale may grow the pool to (at most 100). */
  readonly maxSharedLines: number
}

export const defaultSimulatedImessageSettings: SimulatedImessageSettings = {
  delayMs: 0,
  fail: "never",
  dedicatedCapacity: 10,
  sharedLines: 1,
  seatsPerSharedLine: 50,
  maxSharedLines: 100
}

export const simulatedImessageNumber = (kind: "shared" | "dedicated", n: number): string =>
  `+1628555${kind === "shared" ? "02" : "03"}${String(n).padStart(2, "0")}`

export interface SimulatedImessageControl {
  /** Makes `n` more dedicated lines available (at most 100 in all). */
  readonly addDedicatedCapacity: (n: number) => void
}

export const makeSimulatedImessagePool = (
  settings: SimulatedImessageSettings = defaultSimulatedImessageSettings
): { readonly layer: Layer.Layer<ImessagePool>; readonly control: SimulatedImessageControl } => {
  let capacity = Math.max(0, Math.min(100, settings.dedicatedCapacity))
  let next = 0
  const free: Array<string> = []
  const seats: Array<number> = Array.from({ length: Math.max(0, Math.min(100, settings.sharedLines)) }, () => 0)
  const maxShared = Math.max(seats.length, Math.min(100, settings.maxSharedLines))
  const delay = settings.delayMs > 0 ? Effect.sleep(settings.delayMs) : Effect.void
  const failure = (): ProviderFailure | undefined =>
    settings.fail === "never"
      ? undefined
      : new ProviderFailure({ provider: "imessage", retryable: settings.fail === "transient", message: "the simulated imessage pool is set to fail" })
  const guarded = <A>(body: () => A) =>
    Effect.andThen(delay, Effect.suspend(() => {
      const failed = failure()
      return failed === undefined ? Effect.sync(body) : Effect.fail(failed)
    }))

  const layer = Layer.sync(ImessagePool, () =>
    ImessagePool.of({
      dedicatedAvailable: guarded(() => free.length + capacity - next),
      claimDedicated: () =>
        guarded(() => {
          const returned = free.shift()
          if (returned !== undefined) return Option.some({ phoneNumber: returned })
          if (next >= capacity) return Option.none()
          next += 1
          return Option.some({ phoneNumber: simulatedImessageNumber("dedicated", next - 1) })
        }),
      releaseDedicated: (phoneNumber) => Effect.sync(() => void (free.includes(phoneNumber) || free.push(phoneNumber))),
      claimSharedSeat: ({ autoScale }) =>
        guarded(() => {
          let line = seats.findIndex((used) => used < settings.seatsPerSharedLine)
          if (line < 0 && autoScale && seats.length < maxShared && settings.seatsPerSharedLine > 0) {
            seats.push(0)
            line = seats.length - 1
          }
          if (line < 0) return Option.none()
          seats[line] = (seats[line] ?? 0) + 1
          return Option.some({ phoneNumber: simulatedImessageNumber("shared", line) })
        }),
      releaseSharedSeat: (phoneNumber) =>
        Effect.sync(() => {
          const line = Number(phoneNumber.slice(-2))
          if (phoneNumber === simulatedImessageNumber("shared", line) && (seats[line] ?? 0) > 0) seats[line] = (seats[line] ?? 0) - 1
        })
    }))
  return { layer, control: { addDedicatedCapacity: (n) => void (capacity = Math.min(100, capacity + Math.max(0, n))) } }
}

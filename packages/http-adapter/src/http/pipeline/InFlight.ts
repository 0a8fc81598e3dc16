/**
 * The in-flight counter: how many requests are being served. Shutdown waits for zero before it
 * closes the database, and readiness reports it. A plain counter (no effect per request): the
 * pipeline counts a request in when it starts and out when its fiber ends, after its response was
 * written.
 */
import { Context } from "effect"

export interface InFlightCounter {
  readonly current: () => number
  readonly enter: () => void
  readonly leave: () => void
}
export class InFlight extends Context.Service<InFlight, InFlightCounter>()("http/InFlight") {}

export const makeInFlightCounter = (): InFlightCounter => {
  let n = 0
  return { current: () => n, enter: () => void n++, leave: () => void n-- }
}

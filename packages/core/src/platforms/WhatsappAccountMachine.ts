import { DateTime } from "effect"
/**
 * The life cycle of a project's WhatsApp Business Account connection (docs/provisioning.md), as a
 * pure reducer:
 *
 *   None ──SenderConnected(w)──▶ Connected(w) ──DisconnectRequested──▶ Disconnecting(w)
 *                                   ▲   │ SenderConnected(w): stays          │ │
 *                                   │   └ SenderConnected(other): rejected   │ │
 *                                   └──────────── DisconnectFailed ──────────┘ │
 *   None ◀──────────────────────── DisconnectCompleted ────────────────────────┘
 *
 * A project has at most one WABA: a sender of another WABA is refused (`waba_mismatch`), and so is
 * any sender while the account is disconnecting. A second disconnect is refused while the first
 * runs, unless its mark is older than `STALE_DISCONNECT_MS` (the process that set it died): then it
 * takes over. A rejected event never changes the state.
 */
import type { WhatsappAccountRecord } from "./WhatsappSchema.js"

export type WabaState =
  | { readonly _tag: "None" }
  | { readonly _tag: "Connected"; readonly wabaId: string }
  | { readonly _tag: "Disconnecting"; readonly wabaId: string; readonly since: number }

export type WabaEvent =
  | { readonly _tag: "SenderConnected"; readonly wabaId: string }
  | { readonly _tag: "DisconnectRequested"; readonly at: number }
  | { readonly _tag: "DisconnectFailed" }
  | { readonly _tag: "DisconnectCompleted" }

export type WabaRejection = "not_connected" | "disconnecting" | "waba_mismatch" | "not_disconnecting"

export type WabaTransition =
  | { readonly _tag: "Applied"; readonly state: WabaState }
  | { readonly _tag: "Rejected"; readonly reason: WabaRejection }

/** After this long a `Disconnecting` mark is taken to be a dead process's. */
export const STALE_DISCONNECT_MS = 60_000

const applied = (state: WabaState): WabaTransition => ({ _tag: "Applied", state })
const rejected = (reason: WabaRejection): WabaTransition => ({ _tag: "Rejected", reason })

export const applyWaba = (state: WabaState, event: WabaEvent): WabaTransition => {
  switch (event._tag) {
    case "SenderConnected":
      if (state._tag === "None") return applied({ _tag: "Connected", wabaId: event.wabaId })
      if (state._tag === "Disconnecting") return rejected("disconnecting")
      return state.wabaId === event.wabaId ? applied(state) : rejected("waba_mismatch")
    case "DisconnectRequested":
      if (state._tag === "None") return rejected("not_connected")
      if (state._tag === "Disconnecting" && event.at - state.since < STALE_DISCONNECT_MS) return rejected("disconnecting")
      return applied({ _tag: "Disconnecting", wabaId: state.wabaId, since: event.at })
    case "DisconnectFailed":
      return state._tag === "Disconnecting" ? applied({ _tag: "Connected", wabaId: state.wabaId }) : rejected("not_disconnecting")
    case "DisconnectCompleted":
      return state._tag === "Disconnecting" ? applied({ _tag: "None" }) : rejected("not_disconnecting")
  }
}

/** The state of a stored connection (none: no row). */
export const wabaStateOf = (account: WhatsappAccountRecord | undefined): WabaState =>
  account === undefined
    ? { _tag: "None" }
    : account.state === "connected"
    ? { _tag: "Connected", wabaId: account.wabaId }
    : { _tag: "Disconnecting", wabaId: account.wabaId, since: DateTime.toEpochMillis(account.updatedAt) }

/**
 * The message status machine (docs/messages.md): a pure reducer from (message, fact) to (message,
 * outcome), as the call machine is for calls. Plain data, no Effect, no clock: every time comes
 * from the fact. The spec names only `accepted` (docs/messages.md); the other statuses and
 * every transition are ours:
 *
 * | fact \ status | none            | dispatched | accepted  | delivered | failed   | received |
 * |---------------|-----------------|------------|-----------|-----------|----------|----------|
 * | dispatched    | → dispatched    | ignored    | ignored   | ignored   | ignored  | rejected |
 * | accepted      | rejected        | → accepted | ignored   | ignored   | ignored  | rejected |
 * | delivered     | rejected        | rejected   | → delivered | ignored | ignored  | rejected |
 * | failed        | rejected        | → failed   | → failed  | ignored   | ignored  | rejected |
 * | received      | → received      | rejected   | rejected  | rejected  | rejected | ignored  |
 *
 * Rules, in order: a duplicate fact id is ignored (`duplicate-fact`); a fact about a message that
 * does not exist yet is rejected unless it creates one (`dispatched`, `received`); a fact of the
 * other direction is rejected (`direction-mismatch`); a terminal message (`delivered`, `failed`,
 * `received`) ignores the rest (`message-terminal`); a repeat or a step back is ignored
 * (`stale-fact`); delivery before acceptance is rejected (`accept-skipped`); a fact timestamped
 * before the message's latest milestone is rejected (`timestamp-regression`).
 */

export type MessageStatus = "dispatched" | "accepted" | "delivered" | "failed" | "received"
export type MessageFactType = MessageStatus

export interface MessageFact {
  readonly id: string
  readonly messageId: string
  readonly type: MessageFactType
  /** Epoch milliseconds. */
  readonly timestamp: number
}

export interface MessageTimestamps {
  readonly dispatchedAt?: number
  readonly acceptedAt?: number
  readonly deliveredAt?: number
  readonly failedAt?: number
  readonly receivedAt?: number
}

export interface MessageState {
  readonly messageId: string
  readonly direction: "addressed" | "received"
  readonly status: MessageStatus
  readonly timestamps: MessageTimestamps
  /** The latest milestone's time. */
  readonly updatedAt: number
}

export type IgnoredReason = "duplicate-fact" | "message-terminal" | "stale-fact"
export type RejectedReason = "unknown-message" | "direction-mismatch" | "accept-skipped" | "timestamp-regression" | "message-mismatch"

export type Outcome =
  | { readonly outcome: "applied"; readonly message: MessageState }
  | { readonly outcome: "ignored"; readonly reason: IgnoredReason; readonly message: MessageState | undefined }
  | { readonly outcome: "rejected"; readonly reason: RejectedReason; readonly message: MessageState | undefined }

const rank: Record<MessageStatus, number> = { dispatched: 1, accepted: 2, delivered: 3, failed: 3, received: 1 }
const terminal = (s: MessageStatus) => s === "delivered" || s === "failed" || s === "received"
const milestone: Record<MessageFactType, keyof MessageTimestamps> = {
  dispatched: "dispatchedAt",
  accepted: "acceptedAt",
  delivered: "deliveredAt",
  failed: "failedAt",
  received: "receivedAt"
}

/** One fact on a message (or on none yet); `seen` tells whether the fact's id was applied before. */
export const apply = (message: MessageState | undefined, fact: MessageFact, seen: (factId: string) => boolean): Outcome => {
  const ignore = (reason: IgnoredReason): Outcome => ({ outcome: "ignored", reason, message })
  const reject = (reason: RejectedReason): Outcome => ({ outcome: "rejected", reason, message })
  if (message !== undefined && message.messageId !== fact.messageId) return reject("message-mismatch")
  if (seen(fact.id)) return ignore("duplicate-fact")
  if (message === undefined) {
    if (fact.type !== "dispatched" && fact.type !== "received") return reject("unknown-message")
    return {
      outcome: "applied",
      message: {
        messageId: fact.messageId,
        direction: fact.type === "received" ? "received" : "addressed",
        status: fact.type,
        timestamps: { [milestone[fact.type]]: fact.timestamp },
        updatedAt: fact.timestamp
      }
    }
  }
  if ((message.direction === "received") !== (fact.type === "received")) return reject("direction-mismatch")
  if (terminal(message.status)) return ignore("message-terminal")
  if (rank[fact.type] <= rank[message.status]) return ignore("stale-fact")
  if (fact.type === "delivered" && message.status !== "accepted") return reject("accept-skipped")
  if (fact.timestamp < message.updatedAt) return reject("timestamp-regression")
  return {
    outcome: "applied",
    message: {
      ...message,
      status: fact.type,
      timestamps: { ...message.timestamps, [milestone[fact.type]]: fact.timestamp },
      updatedAt: fact.timestamp
    }
  }
}

/** The machine with the applied fact ids kept alongside, for folding a sequence. */
export interface MachineState {
  readonly message: MessageState | undefined
  readonly applied: ReadonlySet<string>
}

export const initial: MachineState = { message: undefined, applied: new Set() }

export const step = (state: MachineState, fact: MessageFact): { readonly state: MachineState; readonly outcome: Outcome } => {
  const outcome = apply(state.message, fact, (id) => state.applied.has(id))
  return outcome.outcome === "applied"
    ? { state: { message: outcome.message, applied: new Set([...state.applied, fact.id]) }, outcome }
    : { state, outcome }
}

export const run = (facts: ReadonlyArray<MessageFact>): MachineState => facts.reduce((s, f) => step(s, f).state, initial)

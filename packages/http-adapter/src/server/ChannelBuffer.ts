/**
 * The per-project buffer of the event channel (ChannelServer.ts): the events one tail reader read
 * from the store, in seq order and contiguous up to `position`, which the project's sessions of this
 * process are served from. It is bounded in bytes and in events, oldest out first, and it keeps only
 * what a session still needs: events every session served from memory was sent are released.
 * Whatever leaves it stays in the store, where a session behind `floor` reads it back.
 *
 * Sizes are estimates of what an event takes in memory: the characters of its data's strings and
 * keys, plus a fixed part for the rest of the envelope — the same measure as the store's bounded
 * read (the data's JSON text) within a few percent. The frame texts made for an entry (shared by
 * the sessions it goes to) count too, at their length.
 */
import type { ChannelEvent } from "@switchboard/core/events"

/** What the rest of an event (ids, type, source, timestamps, the frame's keys) takes, about. */
const ENVELOPE_BYTES = 256

/** The characters of a JSON value's strings and keys, plus 8 per number or literal: its weight, about. */
export const approxBytes = (value: unknown, depth = 0): number => {
  if (typeof value === "string") return value.length + 2
  if (value === null || typeof value !== "object") return 8
  if (depth > 32) return 8
  let n = 2
  if (Array.isArray(value)) for (const v of value) n += approxBytes(v, depth + 1) + 1
  else for (const [k, v] of Object.entries(value)) n += k.length + 4 + approxBytes(v, depth + 1)
  return n
}

/** An event's estimated size: its data and envelope (also about the length of its frame). */
export const eventBytes = (e: ChannelEvent) => ENVELOPE_BYTES + approxBytes(e.event.data)

export interface Entry {
  readonly event: ChannelEvent
  /** `eventBytes` of the event. */
  readonly size: number
  /** The sum of `size` over the entries pushed so far, this one included (see `bytesAfter`). */
  readonly end: number
  /** Frame texts made for the event, one per protocol (`null`: not carried); counted in `bytes`. */
  events?: string
  fusor?: string | null
  fusorAt?: number
}

export interface BufferLimits {
  readonly maxBytes: number
  readonly maxEvents: number
}

export class EventBuffer {
  /** Oldest first; every event with `floor` < seq ≤ `position` that the buffer keeps. */
  entries: Array<Entry> = []
  /** Events up to this seq are not in memory (read them from the store). */
  floor: number
  /** The highest seq read from the store. */
  position: number
  /** What the entries take: their sizes and their frame texts. */
  bytes = 0
  /** The most `bytes` the buffer kept (after each trim: a read being pushed is not counted). */
  peakBytes = 0
  private pushed = 0

  constructor(head: number, readonly limits: BufferLimits) {
    this.floor = head
    this.position = head
  }

  /** Appends events read after `position` (in seq order); then `trim` keeps the limits. */
  push(events: ReadonlyArray<ChannelEvent>): void {
    for (const event of events) {
      if (event.seq <= this.position) continue
      const size = eventBytes(event)
      this.pushed += size
      this.entries.push({ event, size, end: this.pushed })
      this.bytes += size
      this.position = event.seq
    }
  }

  /** The index of the first entry with seq > `after`. */
  firstAfter(after: number): number {
    let lo = 0
    let hi = this.entries.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.entries[mid]!.event.seq > after) hi = mid
      else lo = mid + 1
    }
    return lo
  }

  /** The estimated size of the buffered events after `cursor` (each whatever a session's filter). */
  bytesAfter(cursor: number): number {
    const i = this.firstAfter(cursor)
    if (i >= this.entries.length) return 0
    const first = this.entries[i]!
    return this.pushed - (first.end - first.size)
  }

  /** Records a frame text made for `entry` (replacing the previous one of the same kind). */
  setText(entry: Entry, kind: "events" | "fusor", text: string | null): void {
    const before = entry[kind]
    this.bytes += (text?.length ?? 0) - (before?.length ?? 0)
    entry[kind] = text as string
  }

  /**
   * Drops the events every session served from memory was sent (seq ≤ `through`; undefined: no
   * session is served from memory, so none is kept), then the oldest while over the limits: those
   * are returned (a session they were due to has fallen behind the buffer).
   */
  trim(through: number | undefined): ReadonlyArray<Entry> {
    const released = Math.min(through ?? this.position, this.position)
    let n = this.firstAfter(released)
    let bytes = this.bytes
    for (let i = 0; i < n; i++) bytes -= this.held(this.entries[i]!)
    let floor = Math.max(this.floor, released)
    const firstEvicted = n
    while (n < this.entries.length && (bytes > this.limits.maxBytes || this.entries.length - n > this.limits.maxEvents)) {
      const evicted = this.entries[n++]!
      bytes -= this.held(evicted)
      floor = evicted.event.seq
    }
    const evicted = n > firstEvicted ? this.entries.slice(firstEvicted, n) : []
    if (n > 0) this.entries = this.entries.slice(n)
    this.bytes = bytes
    this.floor = floor
    if (bytes > this.peakBytes) this.peakBytes = bytes
    return evicted
  }

  private held(entry: Entry): number {
    return entry.size + (entry.events?.length ?? 0) + (entry.fusor?.length ?? 0)
  }
}

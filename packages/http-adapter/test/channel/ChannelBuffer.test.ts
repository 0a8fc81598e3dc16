/**
 * The channel's per-project buffer (src/server/ChannelBuffer.ts), pure: what it keeps and lets go —
 * released once every session served from it was sent an event, evicted oldest first past its
 * bytes (frame texts counted) or its events — and the floor below which sessions read the store.
 */
import type { ChannelEvent, EventEnvelope } from "@switchboard/core/events"
import { DateTime } from "effect"
import { describe, expect, it } from "vitest"
import { approxBytes, EventBuffer, eventBytes } from "../../src/server/ChannelBuffer.js"

const event = (seq: number, pad = 0): ChannelEvent => ({
  seq,
  projectId: "p",
  replyUntil: null,
  platform: null,
  event: {
    id: `sb_evt_${seq}` as EventEnvelope["id"],
    type: "project.updated",
    apiVersion: "2026-07-01",
    source: "test",
    timestamp: DateTime.makeUnsafe(0) as DateTime.Utc,
    data: { pad: "x".repeat(pad) }
  }
})
const seqs = (b: EventBuffer) => b.entries.map((e) => e.event.seq)

describe("channel buffer", () => {
  it("sizes an event by its data's JSON, about", () => {
    const data = { a: "x".repeat(1000), b: [1, 2, { c: null }], d: true }
    expect(Math.abs(approxBytes(data) - JSON.stringify(data).length)).toBeLessThan(40)
    expect(eventBytes(event(1, 10_000))).toBeGreaterThan(10_000)
  })

  it("releases what every session served from it was sent; nothing is kept for nobody", () => {
    const b = new EventBuffer(10, { maxBytes: 1e9, maxEvents: 1_000 })
    b.push([event(11), event(13), event(14)])
    expect(b.position).toBe(14)
    b.trim(11)
    expect(seqs(b)).toEqual([13, 14])
    expect(b.floor).toBe(11)
    // A cursor between two seqs releases up to it.
    b.trim(12)
    expect(seqs(b)).toEqual([13, 14])
    expect(b.floor).toBe(12)
    b.trim(undefined)
    expect(seqs(b)).toEqual([])
    expect(b.floor).toBe(14)
    expect(b.bytes).toBe(0)
    // Events already read are not pushed twice.
    b.push([event(14), event(15)])
    expect(seqs(b)).toEqual([15])
  })

  it("evicts oldest first past its bytes, frame texts counted, and returns what it evicted", () => {
    const one = eventBytes(event(1, 1_000))
    const b = new EventBuffer(0, { maxBytes: 3 * one, maxEvents: 1_000 })
    b.push([1, 2, 3].map((s) => event(s, 1_000)))
    expect(b.trim(0)).toEqual([])
    expect(b.bytes).toBe(3 * one)
    // A frame text made for the newest pushes the buffer over: the oldest goes.
    b.setText(b.entries[2]!, "events", "t".repeat(500))
    const evicted = b.trim(0)
    expect(evicted.map((e) => e.event.seq)).toEqual([1])
    expect(seqs(b)).toEqual([2, 3])
    expect(b.floor).toBe(1)
    expect(b.bytes).toBe(2 * one + 500)
    expect(b.peakBytes).toBeLessThanOrEqual(3 * one)
    // Replacing a text counts the difference.
    b.setText(b.entries[1]!, "events", "t".repeat(100))
    expect(b.bytes).toBe(2 * one + 100)
    // One event larger than the whole buffer is not kept either.
    b.push([event(4, 10 * one)])
    expect(b.trim(0).map((e) => e.event.seq)).toEqual([2, 3, 4])
    expect(b.entries).toEqual([])
    expect(b.floor).toBe(4)
    expect(b.peakBytes).toBeLessThanOrEqual(3 * one)
  })

  it("evicts past its count too; what is released is not reported as evicted", () => {
    const b = new EventBuffer(0, { maxBytes: 1e9, maxEvents: 2 })
    b.push([event(1), event(2), event(3), event(4), event(5)])
    expect(b.trim(1).map((e) => e.event.seq)).toEqual([2, 3])
    expect(seqs(b)).toEqual([4, 5])
    expect(b.floor).toBe(3)
  })

  it("counts the bytes after a cursor (what a session has due)", () => {
    const b = new EventBuffer(0, { maxBytes: 1e9, maxEvents: 1_000 })
    b.push([event(1, 100), event(2, 200), event(3, 300)])
    const size = (seq: number) => b.entries.find((e) => e.event.seq === seq)!.size
    expect(b.bytesAfter(0)).toBe(size(1) + size(2) + size(3))
    expect(b.bytesAfter(1)).toBe(size(2) + size(3))
    expect(b.bytesAfter(3)).toBe(0)
    b.trim(1)
    b.push([event(4, 400)])
    expect(b.bytesAfter(2)).toBe(size(3) + size(4))
  })
})

/** Lines on the memory store with the testkit's simulated provider. */
import { describe, expect, it } from "@effect/vitest"
import {
  LineProvider,
  Lines,
  LineUnavailable,
  simulatedLineNumber,
  simulatedVoiceCapable
} from "@switchboard/core/voice"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Env, failureOf, setupProject } from "./VoiceFixtures.js"

describe("Lines", () => {
  it.effect("allocate gives fictional E.164 numbers; voice and sms lines are voice-capable; list is oldest first", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const lines = yield* Lines
      const voice = yield* lines.allocate({ projectId: ctx.projectId, platform: "voice" })
      yield* TestClock.adjust("1 second")
      const sms = yield* lines.allocate({ projectId: ctx.projectId, platform: "sms" })
      yield* TestClock.adjust("1 second")
      const imessage = yield* lines.allocate({ projectId: ctx.projectId, platform: "imessage" })
      expect(voice.lineId).toMatch(/^sb_lin_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      for (const l of [voice, sms, imessage]) expect(l.phoneNumber).toMatch(/^\+1[2-9]\d{2}55501\d{2}$/)
      expect(new Set([voice, sms, imessage].map((l) => l.phoneNumber)).size).toBe(3)
      expect([voice.voiceCapable, sms.voiceCapable, imessage.voiceCapable]).toEqual([true, true, false])
      expect(yield* lines.list(ctx.projectId)).toEqual([voice, sms, imessage])
      expect(yield* lines.get(ctx.projectId, sms.lineId)).toEqual(sms)
      const other = yield* setupProject
      expect(yield* lines.list(other.projectId)).toEqual([])
      expect((yield* failureOf(lines.get(other.projectId, sms.lineId)))?._tag).toBe("LineNotFound")
    }).pipe(Effect.provide(Env)))

  it.effect("release: the line disappears from list and get, a second release is LineNotFound, the number is reused", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const lines = yield* Lines
      const a = yield* lines.allocate({ projectId: ctx.projectId, platform: "voice" })
      const b = yield* lines.allocate({ projectId: ctx.projectId, platform: "voice" })
      expect(yield* lines.release({ projectId: ctx.projectId, lineId: a.lineId })).toEqual(a)
      expect(yield* lines.list(ctx.projectId)).toEqual([b])
      expect((yield* failureOf(lines.get(ctx.projectId, a.lineId)))?._tag).toBe("LineNotFound")
      expect((yield* failureOf(lines.release({ projectId: ctx.projectId, lineId: a.lineId })))?._tag).toBe("LineNotFound")
      const c = yield* lines.allocate({ projectId: ctx.projectId, platform: "sms" })
      expect(c.phoneNumber).toBe(a.phoneNumber)
      expect(c.lineId).not.toBe(a.lineId)
    }).pipe(Effect.provide(Env)))

  it.effect("a provider with no number: LineUnavailable, and nothing is stored", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const failing = Layer.succeed(LineProvider, {
        allocate: ({ platform }) => Effect.fail(new LineUnavailable({ platform, message: "none left" })),
        release: () => Effect.void
      })
      const failure = yield* failureOf(
        Effect.flatMap(Lines, (l) => l.allocate({ projectId: ctx.projectId, platform: "voice" })).pipe(
          Effect.provide(Lines.layer.pipe(Layer.provide(failing)), { local: true })
        )
      )
      expect(failure?._tag).toBe("LineUnavailable")
      expect(yield* (yield* Lines).list(ctx.projectId)).toEqual([])
    }).pipe(Effect.provide(Env)))

  it("the simulated numbering: +1 NPA 555 01xx, 100 per area code, voice and sms take calls", () => {
    expect(simulatedLineNumber(0)).toBe("+12015550100")
    expect(simulatedLineNumber(99)).toBe("+12015550199")
    expect(simulatedLineNumber(100)).toBe("+12025550100")
    expect(simulatedLineNumber(79_899)).toBe("+19995550199")
    expect(simulatedLineNumber(79_900)).toBeUndefined()
    expect(simulatedLineNumber(-1)).toBeUndefined()
    expect(["voice", "sms", "imessage", "email"].map((p) => simulatedVoiceCapable(p as never))).toEqual([true, true, false, false])
  })
})

/**
 * Lines (the service provisions and operates messaging and
 * voice lines; docs/api-notes/management-api.md): the numbers a project holds, one per platform
 * allocation. A `LineProvider` port hands out the numbers (the standalone server and the testkit
 * use a simulated provider allocating fictional test numbers); the `LinesRepo` port keeps the lines
 * and, for voice-capable ones, their profile assignment (voice/VoiceLineAssignments.ts).
 *
 * A released line disappears from `list` and `get` (its row is kept, with `releasedAt`, so calls
 * that used it still name a line that existed), and its number goes back to the provider.
 */
import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import { IdKinds, typeIdPattern } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { Timestamp } from "../shared/Timestamp.js"
import { fn } from "../internal/Traced.js"

/** The platforms a line can serve (the same seven as the platform toggles). */
export const LinePlatform = Schema.Literals(["imessage", "whatsapp_business", "slack", "sms", "voice", "telegram", "email"])
  .annotate({ identifier: "LinePlatform" })
export type LinePlatform = typeof LinePlatform.Type

/** `sb_lin_…` */
export const LineId = Schema.String.pipe(
  Schema.check(Schema.isPattern(typeIdPattern(IdKinds.line), { message: "must be an sb_lin_ identifier" }))
).annotate({ identifier: "LineId" })

/** E.164: `+`, then 2 to 15 digits, the first not 0. */
export const E164 = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^\+[1-9]\d{1,14}$/u, { message: "must be an E.164 phone number like +15550100" }))
).annotate({ identifier: "E164" })

export interface Line {
  /** `sb_lin_…` (IdKinds.line) */
  readonly lineId: string
  readonly projectId: string
  readonly platform: LinePlatform
  /** E.164 */
  readonly phoneNumber: string
  readonly voiceCapable: boolean
  readonly createdAt: DateTime.Utc
}

/** A line on the wire (for the surfaces that list lines). */
export const LineSchema: Schema.Codec<Line, {
  readonly lineId: string
  readonly projectId: string
  readonly platform: LinePlatform
  readonly phoneNumber: string
  readonly voiceCapable: boolean
  readonly createdAt: string
}> = Schema.Struct({
  lineId: LineId,
  projectId: Schema.String,
  platform: LinePlatform,
  phoneNumber: E164,
  voiceCapable: Schema.Boolean,
  createdAt: Timestamp
}).annotate({ identifier: "Line" })

/** No active line with this id in the project (unknown, another project's, or released). */
export class LineNotFound extends Schema.TaggedError<LineNotFound>()("LineNotFound", {
  lineId: Schema.String
}) {}

/** The provider has no number for this platform now. */
export class LineUnavailable extends Schema.TaggedError<LineUnavailable>()("LineUnavailable", {
  platform: Schema.String,
  message: Schema.String
}) {}

/** Where numbers come from (a carrier, a pool; the simulated provider in the server and the testkit). */
export class LineProvider extends Context.Service<LineProvider, {
  readonly allocate: (a: { readonly projectId: string; readonly platform: LinePlatform }) => Effect.Effect<
    { readonly phoneNumber: string; readonly voiceCapable: boolean },
    LineUnavailable
  >
  readonly release: (a: { readonly phoneNumber: string }) => Effect.Effect<void>
}>()("core/LineProvider") {}

/**
 * The simulated provider's `n`th number (n ≥ 0): `+1 NPA 555 01xx`, the 555-0100…0199 block that
 * North American numbering reserves for fiction, in area codes 201, 202, … (100 numbers each).
 * Undefined past the last area code.
 */
export const simulatedLineNumber = (n: number): string | undefined =>
  Number.isInteger(n) && n >= 0 && n < 79_900
    ? `+1${201 + Math.floor(n / 100)}55501${String(n % 100).padStart(2, "0")}`
    : undefined

/** Which simulated numbers take calls: those of the `voice` and `sms` platforms (phone lines). */
export const simulatedVoiceCapable = (platform: LinePlatform): boolean => platform === "voice" || platform === "sms"

/**
 * A line as stored: the line, when it was released, and its voice profile assignment (the explicit
 * override, `null` = follows the project's default profile; `assignmentVersion` is the
 * `resourceVersion` that `expectedVersion` is checked against).
 */
export interface LineRecord {
  readonly line: Line
  readonly releasedAt: DateTime.Utc | null
  readonly profileId: string | null
  readonly assignmentVersion: number
  readonly assignmentUpdatedAt: DateTime.Utc
}

export class LinesRepo extends Context.Service<LinesRepo, {
  /** Stores a new active line (assignment version 1, following the default profile). */
  readonly insert: (line: Line) => Effect.Effect<void>
  /** The project's active lines, oldest first (by `createdAt`, then id). */
  readonly listActive: (projectId: string) => Effect.Effect<ReadonlyArray<Line>>
  /** The project's active line. */
  readonly find: (projectId: string, lineId: string) => Effect.Effect<Option.Option<LineRecord>>
  /** Like `find`, with the row locked until the surrounding transaction ends. */
  readonly lock: (projectId: string, lineId: string) => Effect.Effect<Option.Option<LineRecord>>
  /**
   * Marks the project's active line released at `now` and drops its profile override; none when
   * there is no such active line.
   */
  readonly release: (args: {
    readonly projectId: string
    readonly lineId: string
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<Line>>
}>()("core/LinesRepo") {}

export class Lines extends Context.Service<Lines>()("core/Lines", {
  make: Effect.gen(function*() {
    const repo = yield* LinesRepo
    const provider = yield* LineProvider
    const ids = yield* Ids
    const tx = yield* Transactor

    /** The project's active lines, oldest first. */
    const list = fn("Lines.list")(function*(projectId: string) {
      return yield* repo.listActive(projectId)
    })

    const get = fn("Lines.get")(function*(projectId: string, lineId: string) {
      const found = yield* repo.find(projectId, lineId)
      if (Option.isNone(found)) return yield* new LineNotFound({ lineId })
      return found.value.line
    })

    /** A new line from the provider; the number goes back if the line cannot be stored. */
    const allocate = fn("Lines.allocate")(function*(args: { readonly projectId: string; readonly platform: LinePlatform }) {
      const number = yield* provider.allocate(args)
      const line: Line = {
        lineId: yield* ids.typeId(IdKinds.line),
        projectId: args.projectId,
        platform: args.platform,
        phoneNumber: number.phoneNumber,
        voiceCapable: number.voiceCapable,
        createdAt: yield* DateTime.now
      }
      yield* tx.withTransaction(repo.insert(line)).pipe(
        Effect.onError(() => provider.release({ phoneNumber: line.phoneNumber }))
      )
      return line
    })

    /** Releases the line (it disappears from list/get) and returns its number to the provider. */
    const release = fn("Lines.release")(function*(args: { readonly projectId: string; readonly lineId: string }) {
      const now = yield* DateTime.now
      const released = yield* tx.withTransaction(repo.release({ ...args, now }))
      if (Option.isNone(released)) return yield* new LineNotFound({ lineId: args.lineId })
      yield* provider.release({ phoneNumber: released.value.phoneNumber })
      return released.value
    })

    return { list, get, allocate, release } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}

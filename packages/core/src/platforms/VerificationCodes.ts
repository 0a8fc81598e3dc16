/**
 * Filtered verification codes (docs/provisioning.md): inbound messages that carry a one-time
 * code are held back before delivery, and the project can see **that** they were (which line, which
 * platform, when) — never the code itself. Counts and lists per project and per held resource, over a
 * window of `receivedAfter`/`receivedBefore` (default: the 30 days before now; at most 366 days;
 * lists newest first).
 *
 * The server's inbound pipeline is message ingestion (messages/Messages.ts): a `received` fact that
 * names a held resource and whose text carries a code is held back here (`heldBackFrom`, in the
 * batch's transaction) instead of becoming a message. `recordInbound` is the same decision for a
 * host's own pipeline (or a test's): it decides whether a message is OTP-bearing and records it. A WhatsApp ownership code (Meta's SMS to
 * a number being registered as a sender) also keeps its 6 digits, which only
 * `getWhatsappBusinessVerificationCode` hands out (to `platforms:write` callers, within 2 minutes).
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Schema } from "effect"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { IdKinds, type ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { createdAtPage } from "../shared/PageToken.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { Timestamp } from "../shared/Timestamp.js"
import { fn } from "../internal/Traced.js"
import { ResourceNotFound } from "./PlatformErrors.js"
import { InvalidQueryParameter } from "./WhatsappErrors.js"
import { ResourcesRepo } from "./PlatformPorts.js"
import { supportedPlatforms } from "./PlatformSchema.js"
import { type FilteredCodeRecord, VerificationCodesRepo } from "./WhatsappPorts.js"
import { NumberFromString } from "../internal/NumberFromString.js"

const platformTypes = supportedPlatforms.map((p) => p.type) as [string, ...Array<string>]
export const FilteredCodePlatform = Schema.Literals(platformTypes)

export const FilteredVerificationCodesQuery = Schema.Struct({
  platform: Schema.optional(FilteredCodePlatform),
  receivedAfter: Schema.optional(Timestamp),
  receivedBefore: Schema.optional(Timestamp),
  pageSize: Schema.optional(NumberFromString.pipe(Schema.decodeTo(Schema.Int), Schema.check(Schema.isBetween({ minimum: 1, maximum: 200 })))),
  pageToken: Schema.optional(Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(2048))))
})
export type FilteredVerificationCodesQuery = typeof FilteredVerificationCodesQuery.Type

export const FilteredVerificationCode = Schema.Struct({
  filteredCodeId: Schema.String,
  resourceId: Schema.String,
  platform: Schema.String,
  receivedAt: Timestamp
}).annotate({ identifier: "FilteredVerificationCode" })

export const FilteredVerificationCodePage = Schema.Struct({
  codes: Schema.Array(FilteredVerificationCode),
  nextPageToken: Schema.optional(Schema.String)
}).annotate({ identifier: "FilteredVerificationCodePage" })

/** The count and the window it covers (echoed, defaults filled in). */
export const FilteredVerificationCodeCount = Schema.Struct({
  count: Schema.Int,
  platform: Schema.optional(Schema.String),
  receivedAfter: Timestamp,
  receivedBefore: Timestamp
}).annotate({ identifier: "FilteredVerificationCodeCount" })

const DAY = 86_400_000
export const DEFAULT_WINDOW_DAYS = 30
export const MAX_WINDOW_DAYS = 366

/** The window a query asks for: defaults filled in; empty or longer than 366 days is refused. */
export const windowOf = (
  query: { readonly receivedAfter?: DateTime.Utc | undefined; readonly receivedBefore?: DateTime.Utc | undefined },
  now: DateTime.Utc
): Effect.Effect<{ readonly receivedAfter: DateTime.Utc; readonly receivedBefore: DateTime.Utc }, InvalidQueryParameter> => {
  const receivedBefore = query.receivedBefore ?? now
  const receivedAfter = query.receivedAfter ??
    DateTime.subtractDuration(receivedBefore, Duration.millis(DEFAULT_WINDOW_DAYS * DAY))
  const span = DateTime.toEpochMillis(receivedBefore) - DateTime.toEpochMillis(receivedAfter)
  if (span <= 0) {
    return Effect.fail(new InvalidQueryParameter({ parameter: "receivedAfter", message: "must be before receivedBefore" }))
  }
  if (span > MAX_WINDOW_DAYS * DAY) {
    return Effect.fail(new InvalidQueryParameter({ parameter: "receivedAfter", message: `the window is longer than ${MAX_WINDOW_DAYS} days` }))
  }
  return Effect.succeed({ receivedAfter, receivedBefore })
}

const CODE_WORDS = /\b(code|otp|passcode|pin|verification|verify|one[- ]time)\b/i
const CODE = /(?<![0-9])([0-9]{3})[- ]?([0-9]{3})(?![0-9])|(?<![0-9])([0-9]{4,8})(?![0-9])/

/**
 * Whether an inbound message carries a one-time code, and the WhatsApp ownership code when it is
 * one (`123-456` or `123456` in a message naming WhatsApp). Pure; exported for tests.
 */
export const classifyInbound = (body: string): { readonly otp: boolean; readonly whatsappCode: string | null } => {
  const text = body.slice(0, 2000)
  const match = CODE.exec(text)
  if (match === null || !CODE_WORDS.test(text)) return { otp: false, whatsappCode: null }
  const six = match[1] !== undefined ? `${match[1]}${match[2]}` : match[3]!.length === 6 ? match[3]! : null
  return { otp: true, whatsappCode: six !== null && /whats\s?app/i.test(text) ? six : null }
}

/** The text of a message content a code may hide in: a text's, an email's subject and text. */
export const inboundTextOf = (content: unknown): string | null => {
  if (typeof content !== "object" || content === null) return null
  const c = content as { readonly subject?: unknown; readonly text?: unknown }
  const parts = [c.subject, c.text].filter((p): p is string => typeof p === "string")
  return parts.length === 0 ? null : parts.join("\n")
}

/** The platform a filtered code is listed under (WhatsApp Business senders are WhatsApp's). */
export const filteredPlatformOf = (platform: string) => platform === "whatsapp_business" ? "whatsapp" : platform

const DEFAULT_PAGE_SIZE = 50

export class VerificationCodes extends Context.Service<VerificationCodes>()("core/VerificationCodes", {
  make: Effect.gen(function*() {
    const repo = yield* VerificationCodesRepo
    const resources = yield* ResourcesRepo
    const ids = yield* Ids
    const gate = yield* makeProjectGate
    const serverSecret = yield* ServerSecret

    /** The resource must be held now (active), else 404. */
    const held = (projectId: string, resourceId: string) =>
      Effect.flatMap(resources.find(projectId, resourceId), (found) =>
        Option.isSome(found) && found.value.state === "active"
          ? Effect.succeed(found.value)
          : Effect.fail(new ResourceNotFound({ resourceId })))

    /** Which of `resourceIds` the project holds now (active), with each one's type. */
    const heldAmong = (projectId: string, resourceIds: ReadonlyArray<string>) =>
      Effect.map(
        Effect.forEach([...new Set(resourceIds)], (id) => resources.find(projectId, id)),
        (found) =>
          new Map(found.flatMap((r) => Option.isSome(r) && r.value.state === "active" ? [[r.value.resourceId, r.value.type] as const] : []))
      )

    /**
     * The record of an inbound message on one of the project's resources if it carries a one-time
     * code (the code itself kept only for a WhatsApp ownership code), or none for an ordinary one.
     * Not stored: `recordInbound` and `insertFromFacts` do that.
     */
    const heldBackFrom = (args: {
      readonly projectId: string
      readonly resourceId: string
      readonly platform: string
      readonly body: string
      readonly receivedAt?: DateTime.Utc | undefined
      readonly factId?: string | undefined
    }) =>
      Effect.gen(function*() {
        const kind = classifyInbound(args.body)
        if (!kind.otp) return Option.none<FilteredCodeRecord>()
        const record: FilteredCodeRecord = {
          filteredCodeId: yield* ids.typeId(IdKinds.message),
          projectId: args.projectId,
          resourceId: args.resourceId,
          platform: filteredPlatformOf(args.platform),
          receivedAt: args.receivedAt ?? (yield* DateTime.now),
          whatsappCode: kind.whatsappCode,
          ...(args.factId === undefined ? {} : { factId: args.factId })
        }
        return Option.some(record)
      })

    /**
     * Records an inbound message on one of the project's resources if it carries a one-time code
     * (the message itself is not kept). Returns the record, or none for an ordinary message.
     */
    const recordInbound = fn("VerificationCodes.recordInbound")(function*(args: {
      readonly projectId: string
      readonly resourceId: string
      readonly platform: string
      readonly body: string
      readonly receivedAt?: DateTime.Utc | undefined
    }) {
      const record = yield* heldBackFrom(args)
      if (Option.isSome(record)) yield* repo.insert(record.value)
      return record
    })

    /** The filter a count or list asks for: the project (and the resource) readable, the window checked. */
    const filterOf = (projectId: ProjectId, principal: Principal, query: FilteredVerificationCodesQuery, resourceId?: string) =>
      Effect.gen(function*() {
        yield* gate.open(projectId, principal, "read")
        if (resourceId !== undefined) yield* held(projectId, resourceId)
        const window = yield* windowOf(query, yield* DateTime.now)
        return { projectId, resourceId, platform: query.platform, ...window }
      })

    const count = fn("VerificationCodes.count")(function*(
      projectId: ProjectId,
      principal: Principal,
      query: FilteredVerificationCodesQuery,
      resourceId?: string
    ) {
      const filter = yield* filterOf(projectId, principal, query, resourceId)
      const count = yield* repo.count(filter)
      return {
        count,
        ...(query.platform === undefined ? {} : { platform: query.platform }),
        receivedAfter: filter.receivedAfter,
        receivedBefore: filter.receivedBefore
      }
    })

    const list = fn("VerificationCodes.list")(function*(
      projectId: ProjectId,
      principal: Principal,
      query: FilteredVerificationCodesQuery,
      resourceId?: string
    ) {
      const filter = yield* filterOf(projectId, principal, query, resourceId)
      const { nextPageToken, page } = yield* createdAtPage({
        // The filters as asked (a default window moves with the clock, so it is not part of the list).
        list: `filtered-otp:${projectId}:${resourceId ?? ""}:${query.platform ?? ""}:${query.receivedAfter?.epochMilliseconds ?? ""}:${
          query.receivedBefore?.epochMilliseconds ?? ""
        }`,
        pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE,
        pageToken: query.pageToken,
        fetch: (after, limit) =>
          repo.list({ ...filter, before: after && { receivedAt: after.createdAt, filteredCodeId: after.id }, limit }),
        positionOf: (r) => ({ createdAt: r.receivedAt, id: r.filteredCodeId }),
        invalidToken: (message) => new InvalidQueryParameter({ parameter: "pageToken", message })
      }).pipe(Effect.provideService(ServerSecret, serverSecret))
      return {
        codes: page.map((r) => ({
          filteredCodeId: r.filteredCodeId,
          resourceId: r.resourceId,
          platform: r.platform,
          receivedAt: r.receivedAt
        })),
        nextPageToken
      }
    })

    return {
      recordInbound,
      heldBackFrom,
      heldAmong,
      insertFromFacts: repo.insertFromFacts,
      factsHeldBack: repo.factsHeldBack,
      count,
      list,
      held
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}

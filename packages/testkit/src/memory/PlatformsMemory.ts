/**
 * The platforms feature's memory layers: operations in the table `"platform_operations"`, and
 * resources in the voice feature's `"lines"` table (as in SQL, a line is a resource; bots and
 * domains are rows without a number, which the lines repository skips). The simulated providers
 * are the testkit's (`makeSimulatedProviders`, simulated/).
 */
import {
  type CampaignRegistry,
  type EmailDomainProvider,
  lineResourceDefaults,
  type NumberProvider,
  type TelegramProvider,
  type OperationRecord,
  OperationsRepo,
  platformOfType,
  ResourceNumberTaken,
  type ResourceRecord,
  ResourcesRepo,
  type WhatsappProvider
} from "@switchboard/core/platforms"
import { makeSimulatedProviders } from "../simulated/index.js"
import type { LineRecord } from "@switchboard/core/voice"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"
import { LINES_TABLE } from "./VoiceMemory.js"

export const PLATFORM_OPERATIONS_TABLE = "platform_operations"

/** A row of the lines table with a resource's columns (absent for lines the voice feature stored). */
export type ResourceLineRow = LineRecord & {
  readonly resource?: {
    readonly type: ResourceRecord["type"]
    readonly abilities: ReadonlyArray<string>
    readonly detail: Readonly<Record<string, unknown>>
    readonly subject: string | null
    readonly updatedAt: ResourceRecord["updatedAt"]
  }
}

type OperationRow = OperationRecord & { readonly subject: string | null }

const byKey = <A>(time: (a: A) => number, id: (a: A) => string) => (a: A, b: A) =>
  time(a) - time(b) || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0)

const toResource = (row: ResourceLineRow): ResourceRecord => {
  const { line, releasedAt } = row
  const defaults = lineResourceDefaults(line.platform, line.voiceCapable)
  const phoneNumber = line.phoneNumber === "" ? null : line.phoneNumber
  const updatedAt = row.resource?.updatedAt ?? releasedAt ?? line.createdAt
  return {
    resourceId: line.lineId,
    projectId: line.projectId,
    type: row.resource?.type ?? defaults.type,
    abilities: row.resource?.abilities ?? defaults.abilities,
    detail: row.resource?.detail ?? (phoneNumber === null ? {} : { phoneNumber }),
    phoneNumber,
    state: releasedAt === null ? "active" : "retired",
    createdAt: line.createdAt,
    updatedAt: releasedAt !== null && DateTime.toEpochMillis(releasedAt) > DateTime.toEpochMillis(updatedAt) ? releasedAt : updatedAt,
    retiredAt: releasedAt
  }
}

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const ops = state.table<string, OperationRow>(PLATFORM_OPERATIONS_TABLE)
  const lines = state.table<string, ResourceLineRow>(LINES_TABLE)
  const strip = ({ subject: _, ...op }: OperationRow): OperationRecord => op

  const operations = OperationsRepo.of({
    insert: (op) => Effect.sync(() => void ops.set(op.operationId, { ...op, subject: op.subject ?? null })),
    find: (id) => Effect.sync(() => Option.map(Option.fromNullishOr(ops.get(id)), strip)),
    lock: (id) => Effect.sync(() => Option.map(Option.fromNullishOr(ops.get(id)), strip)),
    update: (op) =>
      Effect.sync(() => {
        const row = ops.get(op.operationId)
        if (row !== undefined) ops.set(op.operationId, { ...op, subject: row.subject })
      }),
    list: ({ after, endedAfter, limit, projectId, resourceId, states, type }) =>
      Effect.sync(() =>
        [...ops.values()]
          .filter((o) =>
            o.projectId === projectId &&
            (states === undefined || states.includes(o.state)) &&
            (type === undefined || o.type === type) &&
            (resourceId === undefined || o.resourceId === resourceId) &&
            (endedAfter === undefined || (o.endedAt !== null && DateTime.toEpochMillis(o.endedAt) > DateTime.toEpochMillis(endedAfter))) &&
            (after === undefined || DateTime.toEpochMillis(o.createdAt) > DateTime.toEpochMillis(after.createdAt) ||
              (DateTime.toEpochMillis(o.createdAt) === DateTime.toEpochMillis(after.createdAt) && o.operationId > after.operationId))
          )
          .sort(byKey((o: OperationRow) => DateTime.toEpochMillis(o.createdAt), (o) => o.operationId))
          .slice(0, limit)
          .map(strip)
      ),
    claimDue: ({ leaseUntil, limit, now }) =>
      Effect.sync(() => {
        const due = [...ops.values()]
          .filter((o) =>
            (o.state === "pending" || o.state === "running") && DateTime.toEpochMillis(o.nextAttemptAt) <= DateTime.toEpochMillis(now) &&
            (o.leasedUntil === null || DateTime.toEpochMillis(o.leasedUntil) <= DateTime.toEpochMillis(now))
          )
          .sort(byKey((o: OperationRow) => DateTime.toEpochMillis(o.nextAttemptAt), (o) => o.operationId))
          .slice(0, limit)
        return due.map((o) => {
          const claimed = { ...o, leasedUntil: leaseUntil, claimSeq: o.claimSeq + 1 }
          ops.set(o.operationId, claimed)
          return strip(claimed)
        })
      }),
    findUnfinished: ({ projectId, resourceType, subject }) =>
      Effect.sync(() =>
        Option.map(
          Option.fromNullishOr(
            [...ops.values()]
              .filter((o) =>
                o.resourceType === resourceType && (o.state === "pending" || o.state === "running") &&
                (projectId === undefined || o.projectId === projectId) && (subject === undefined || o.subject === subject)
              )
              .sort(byKey((o: OperationRow) => DateTime.toEpochMillis(o.createdAt), (o) => o.operationId))[0]
          ),
          strip
        )
      )
  })

  const own = (projectId: string, resourceId: string) => {
    const row = lines.get(resourceId)
    return row !== undefined && row.line.projectId === projectId ? row : undefined
  }

  const resources = ResourcesRepo.of({
    insert: (r) =>
      Effect.suspend(() => {
        for (const row of lines.values()) {
          if (row.releasedAt !== null) continue
          if (r.phoneNumber !== null && row.line.phoneNumber === r.phoneNumber) {
            return Effect.fail(new ResourceNumberTaken({ phoneNumber: r.phoneNumber }))
          }
          if (
            r.subject !== undefined && r.subject !== null && row.resource?.subject === r.subject &&
            row.resource.type === r.type
          ) {
            return Effect.fail(new ResourceNumberTaken({ phoneNumber: r.subject }))
          }
        }
        lines.set(r.resourceId, {
          line: {
            lineId: r.resourceId,
            projectId: r.projectId,
            platform: platformOfType(r.type),
            phoneNumber: r.phoneNumber ?? "",
            voiceCapable: r.abilities.includes("pstn_voice"),
            createdAt: r.createdAt
          },
          releasedAt: null,
          profileId: null,
          assignmentVersion: 1,
          assignmentUpdatedAt: r.createdAt,
          resource: { type: r.type, abilities: r.abilities, detail: r.detail, subject: r.subject ?? null, updatedAt: r.updatedAt }
        })
        return Effect.void
      }),
    find: (projectId, resourceId) => Effect.sync(() => Option.map(Option.fromNullishOr(own(projectId, resourceId)), toResource)),
    lock: (projectId, resourceId) => Effect.sync(() => Option.map(Option.fromNullishOr(own(projectId, resourceId)), toResource)),
    list: ({ ability, after, limit, projectId, states, type }) =>
      Effect.sync(() =>
        [...lines.values()]
          .filter((row) => row.line.projectId === projectId)
          .map(toResource)
          .filter((r) =>
            (states === undefined || states.includes(r.state)) &&
            (type === undefined || r.type === type) &&
            (ability === undefined || r.abilities.includes(ability)) &&
            (after === undefined || DateTime.toEpochMillis(r.createdAt) > DateTime.toEpochMillis(after.createdAt) ||
              (DateTime.toEpochMillis(r.createdAt) === DateTime.toEpochMillis(after.createdAt) && r.resourceId > after.resourceId))
          )
          .sort(byKey((r: ResourceRecord) => DateTime.toEpochMillis(r.createdAt), (r) => r.resourceId))
          .slice(0, limit)
      ),
    retire: ({ now, projectId, resourceId }) =>
      Effect.sync(() => {
        const row = own(projectId, resourceId)
        if (row === undefined || row.releasedAt !== null) return Option.none()
        const next: ResourceLineRow = {
          ...row,
          releasedAt: now,
          profileId: null,
          ...(row.resource === undefined ? {} : { resource: { ...row.resource, updatedAt: now } })
        }
        lines.set(resourceId, next)
        return Option.some(toResource(next))
      }),
    updateDetail: ({ detail, now, projectId, resourceId }) =>
      Effect.sync(() => {
        const row = own(projectId, resourceId)
        if (row === undefined || row.releasedAt !== null) return Option.none()
        const resource = toResource(row)
        const next: ResourceLineRow = {
          ...row,
          resource: {
            type: resource.type,
            abilities: resource.abilities,
            subject: row.resource?.subject ?? null,
            detail,
            updatedAt: now
          }
        }
        lines.set(resourceId, next)
        return Option.some(toResource(next))
      }),
    findActiveBySubject: (type, subject) =>
      Effect.sync(() =>
        Option.map(
          Option.fromNullishOr(
            [...lines.values()].find((row) =>
              row.releasedAt === null && row.resource?.subject === subject && row.resource.type === type
            )
          ),
          toResource
        )
      )
  })

  return Layer.mergeAll(Layer.succeed(OperationsRepo, operations), Layer.succeed(ResourcesRepo, resources))
})

/** The repositories, and the simulated providers (default settings) as the non-store ports. */
export const PlatformsMemory: Layer.Layer<
  OperationsRepo | ResourcesRepo | NumberProvider | TelegramProvider | EmailDomainProvider | CampaignRegistry | WhatsappProvider,
  never,
  MemoryState
> = Layer.merge(Layer.unwrap(make), Layer.suspend(() => makeSimulatedProviders()))

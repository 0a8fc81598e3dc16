/**
 * The Voice feature's SQL repositories (API.md §1.5; interfaces.md A). Profiles and calls are
 * stored as the JSON of their core schema (`record`) next to the columns their lookups use; a
 * call's row lock (`lock`: `FOR UPDATE`) serialises concurrent signals of one call, and
 * `insert … ON CONFLICT DO NOTHING` decides between concurrent `started` signals. The unique index
 * on a project's default profile decides between concurrent creates of it.
 *
 * `LineProviderSimulatedSql` is the standalone server's simulated line provider: fictional numbers
 * (`simulatedLineNumber`) kept in `simulated_line_numbers`, so several server processes on one
 * database never hand out one number twice and released numbers are reused.
 */
import { SqlClient } from "@effect/sql"
import {
  CallsRepo,
  LinePlatform,
  LineProvider,
  type LineRecord,
  LinesRepo,
  LineUnavailable,
  simulatedLineNumber,
  simulatedVoiceCapable,
  Voice,
  VoiceDefaultProfileExists,
  VoiceProfileRecord,
  VoiceProfilesRepo
} from "@switchboard/core"
import { Effect, Layer, Option, Schema } from "effect"
import { DbTime, isUniqueViolation, orDie, toDate } from "../shared/Sql.js"

const first = <A>(rows: ReadonlyArray<A>) => Option.fromNullable(rows[0])
const json = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)

// ---------------------------------------------------------------------------------------------
// Lines

const LineRow = Schema.Struct({
  lineId: Schema.String,
  projectId: Schema.String,
  platform: LinePlatform,
  phoneNumber: Schema.String,
  voiceCapable: Schema.Boolean,
  createdAt: DbTime,
  releasedAt: Schema.NullOr(DbTime),
  voiceProfileId: Schema.NullOr(Schema.String),
  assignmentVersion: Schema.Number,
  assignmentUpdatedAt: DbTime
})
const decodeLines = Schema.decodeUnknown(Schema.Array(LineRow))
const toLineRecord = (r: typeof LineRow.Type): LineRecord => ({
  line: {
    lineId: r.lineId,
    projectId: r.projectId,
    platform: r.platform,
    phoneNumber: r.phoneNumber,
    voiceCapable: r.voiceCapable,
    createdAt: r.createdAt
  },
  releasedAt: r.releasedAt,
  profileId: r.voiceProfileId,
  assignmentVersion: r.assignmentVersion,
  assignmentUpdatedAt: r.assignmentUpdatedAt
})

export const LinesRepoSql = Layer.effect(
  LinesRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(
      "line_id, project_id, platform, phone_number, voice_capable, created_at, released_at, voice_profile_id, " +
        "assignment_version, assignment_updated_at"
    )
    const select = (statement: Effect.Effect<ReadonlyArray<unknown>, any>) =>
      orDie(Effect.flatMap(statement, decodeLines)).pipe(Effect.map((rows) => rows.map(toLineRecord)))

    return LinesRepo.of({
      insert: (line) =>
        orDie(sql`insert into lines ${sql.insert({
          lineId: line.lineId,
          projectId: line.projectId,
          platform: line.platform,
          phoneNumber: line.phoneNumber,
          voiceCapable: line.voiceCapable,
          createdAt: toDate(line.createdAt),
          assignmentVersion: 1,
          assignmentUpdatedAt: toDate(line.createdAt)
        })}`).pipe(Effect.asVoid),
      listActive: (projectId) =>
        select(sql`
          select ${cols} from lines
          where project_id = ${projectId} and released_at is null
          order by created_at, line_id`).pipe(Effect.map((rows) => rows.map((r) => r.line))),
      find: (projectId, lineId) =>
        Effect.map(
          select(sql`select ${cols} from lines where line_id = ${lineId} and project_id = ${projectId} and released_at is null`),
          first
        ),
      lock: (projectId, lineId) =>
        Effect.map(
          select(sql`
            select ${cols} from lines where line_id = ${lineId} and project_id = ${projectId} and released_at is null
            for update`),
          first
        ),
      release: ({ lineId, now, projectId }) =>
        select(sql`
          update lines set released_at = ${toDate(now)}, voice_profile_id = null
          where line_id = ${lineId} and project_id = ${projectId} and released_at is null
          returning ${cols}`).pipe(Effect.map((rows) => Option.map(first(rows), (r) => r.line)))
    })
  })
)

// ---------------------------------------------------------------------------------------------
// Voice profiles

const decodeProfile = Schema.decodeUnknown(VoiceProfileRecord)
const encodeProfile = Schema.encode(VoiceProfileRecord)
const ProfileRow = Schema.Struct({ record: Schema.Unknown })

export const VoiceProfilesRepoSql = Layer.effect(
  VoiceProfilesRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const records = (statement: Effect.Effect<ReadonlyArray<unknown>, any>) =>
      orDie(Effect.flatMap(statement, (rows) =>
        Effect.forEach(rows as ReadonlyArray<typeof ProfileRow.Type>, (r) => decodeProfile(json(r.record)))))
    const one = (statement: Effect.Effect<ReadonlyArray<unknown>, any>) => Effect.map(records(statement), first)
    const stored = (record: VoiceProfileRecord) => Effect.map(orDie(encodeProfile(record)), JSON.stringify)

    return VoiceProfilesRepo.of({
      insert: (record) =>
        Effect.flatMap(stored(record), (text) =>
          // Its own savepoint: after a unique violation the surrounding transaction goes on.
          sql.withTransaction(sql`insert into voice_profiles ${sql.insert({
            profileId: record.profileId,
            projectId: record.projectId,
            isDefault: record.isDefault,
            createdAt: toDate(record.createdAt),
            record: text
          })}`).pipe(
            Effect.asVoid,
            Effect.catchTag("SqlError", (e) =>
              isUniqueViolation(e)
                ? Effect.fail(new VoiceDefaultProfileExists({ profileId: record.profileId }))
                : Effect.die(e))
          )),
      find: (projectId, profileId) =>
        one(sql`select record from voice_profiles where profile_id = ${profileId} and project_id = ${projectId}`),
      findDefault: (projectId) => one(sql`select record from voice_profiles where project_id = ${projectId} and is_default`),
      lock: (projectId, profileId) =>
        one(sql`select record from voice_profiles where profile_id = ${profileId} and project_id = ${projectId} for update`),
      lockDefault: (projectId) =>
        one(sql`select record from voice_profiles where project_id = ${projectId} and is_default for update`),
      update: (record) =>
        Effect.flatMap(stored(record), (text) =>
          orDie(sql`
            update voice_profiles set record = ${text}::json
            where profile_id = ${record.profileId} and project_id = ${record.projectId}`)).pipe(Effect.asVoid),
      remove: (projectId, profileId) =>
        orDie(sql`delete from voice_profiles where profile_id = ${profileId} and project_id = ${projectId}`).pipe(Effect.asVoid),
      list: ({ after, isDefault, limit, projectId }) =>
        records(sql`
          select record from voice_profiles
          where ${sql.and([
            sql`project_id = ${projectId}`,
            isDefault === undefined ? sql`true` : sql`is_default = ${isDefault}`,
            after === undefined ? sql`true` : sql`(created_at, profile_id) > (${toDate(after.createdAt)}, ${after.profileId})`
          ])}
          order by created_at, profile_id
          limit ${limit}`),
      lineCounts: (projectId, profileIds) =>
        profileIds.length === 0
          ? Effect.succeed(new Map())
          : orDie(sql<{ voiceProfileId: string; count: number }>`
              select voice_profile_id, count(*)::int as count from lines
              where project_id = ${projectId} and released_at is null and ${sql.in("voice_profile_id", [...profileIds])}
              group by voice_profile_id`).pipe(Effect.map((rows) => new Map(rows.map((r) => [r.voiceProfileId, r.count])))),
      defaultLineCount: (projectId) =>
        orDie(sql<{ count: number }>`
          select count(*)::int as count from lines
          where project_id = ${projectId} and released_at is null and voice_capable and voice_profile_id is null`).pipe(
          Effect.map((rows) => rows[0]?.count ?? 0)
        ),
      setAssignment: ({ lineId, profileId, projectId, updatedAt, version }) =>
        orDie(sql`
          update lines set voice_profile_id = ${profileId}, assignment_version = ${version},
            assignment_updated_at = ${toDate(updatedAt)}
          where line_id = ${lineId} and project_id = ${projectId} and released_at is null`).pipe(Effect.asVoid),
      clearAssignments: ({ now, profileId, projectId }) =>
        orDie(sql<{ lineId: string }>`
          update lines set voice_profile_id = null, assignment_version = assignment_version + 1,
            assignment_updated_at = ${toDate(now)}
          where project_id = ${projectId} and voice_profile_id = ${profileId}
          returning line_id`).pipe(Effect.map((rows) => rows.length))
    })
  })
)

// ---------------------------------------------------------------------------------------------
// Calls

const decodeCall = Schema.decodeUnknown(Voice.Call)
const encodeCall = Schema.encode(Voice.Call)

export const CallsRepoSql = Layer.effect(
  CallsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const calls = (statement: Effect.Effect<ReadonlyArray<unknown>, any>) =>
      orDie(Effect.flatMap(statement, (rows) =>
        Effect.forEach(rows as ReadonlyArray<{ readonly record: unknown }>, (r) => decodeCall(json(r.record)))))
    const stored = (call: Voice.Call) => Effect.map(orDie(encodeCall(call)), JSON.stringify)

    return CallsRepo.of({
      find: (projectId, callId) =>
        Effect.map(calls(sql`select record from calls where call_id = ${callId} and project_id = ${projectId}`), first),
      lock: (projectId, callId) =>
        Effect.map(calls(sql`select record from calls where call_id = ${callId} and project_id = ${projectId} for update`), first),
      lockCalls: (projectId, callIds) =>
        callIds.length === 0 ? Effect.void : orDie(sql`
          select call_id from calls where project_id = ${projectId} and ${sql.in("call_id", [...callIds].sort())}
          order by call_id for update`).pipe(Effect.asVoid),
      lockForSignal: (projectId, callId, signalId) =>
        orDie(Effect.flatMap(
          sql<{ record: unknown; signalApplied: boolean }>`
            select c.record,
              exists (select 1 from call_signals s where s.call_id = c.call_id and s.signal_id = ${signalId}) as signal_applied
            from calls c where c.call_id = ${callId} and c.project_id = ${projectId}
            for update of c`,
          (rows) =>
            Effect.forEach(rows, (r) => Effect.map(decodeCall(json(r.record)), (call) => ({ call, signalApplied: r.signalApplied })))
        )).pipe(Effect.map(first)),
      insertApplied: ({ appliedAt, call, projectId, signalId }) =>
        Effect.flatMap(stored(call), (text) =>
          // One statement: the call and the signal that created it, or nothing when the id is taken.
          orDie(sql<{ callId: string }>`
            with inserted as (
              insert into calls (call_id, project_id, status, direction, created_at, record)
              values (${call.id}, ${projectId}, ${call.status}, ${call.direction}, ${toDate(call.createdAt)}, ${text}::json)
              on conflict (call_id) do nothing
              returning call_id
            )
            insert into call_signals (call_id, signal_id, applied_at)
            select call_id, ${signalId}, ${toDate(appliedAt)} from inserted
            returning call_id`)).pipe(Effect.map((rows) => rows.length === 1)),
      updateApplied: ({ appliedAt, call, projectId, signalId }) =>
        Effect.flatMap(stored(call), (text) =>
          // One statement: the call and the id of the signal applied to it.
          orDie(sql`
            with updated as (
              update calls set status = ${call.status}, record = ${text}::json
              where call_id = ${call.id} and project_id = ${projectId}
              returning call_id
            )
            insert into call_signals (call_id, signal_id, applied_at)
            select call_id, ${signalId}, ${toDate(appliedAt)} from updated
            on conflict do nothing`)).pipe(Effect.asVoid),
      loadBatch: ({ callIds, projectId, signalIds }) =>
        Effect.gen(function*() {
          if (callIds.length === 0) return { calls: new Map(), elsewhere: new Set<string>() }
          const ids = [...callIds].sort()
          const rows = yield* orDie(sql<{ callId: string; projectId: string; record: unknown }>`
            select call_id, project_id, record from calls where ${sql.in("call_id", ids)} order by call_id for update`)
          const applied = signalIds.length === 0 ? [] : yield* orDie(sql<{ callId: string; signalId: string }>`
            select call_id, signal_id from call_signals where ${sql.in("call_id", ids)} and ${sql.in("signal_id", [...new Set(signalIds)])}`)
          const found = new Map<string, { readonly call: Voice.Call; readonly applied: ReadonlySet<string> }>()
          const elsewhere = new Set<string>()
          for (const r of rows) {
            if (r.projectId !== projectId) {
              elsewhere.add(r.callId)
              continue
            }
            const call = yield* orDie(decodeCall(json(r.record)))
            found.set(r.callId, { call, applied: new Set(applied.filter((a) => a.callId === r.callId).map((a) => a.signalId)) })
          }
          return { calls: found, elsewhere }
        }),
      writeBatch: ({ applied, created, projectId, updated }) =>
        Effect.gen(function*() {
          if (created.length > 0) {
            // In id order, like the locks: concurrent batches creating the same calls never deadlock.
            const rows = yield* Effect.forEach([...created].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)), (call) =>
              Effect.map(stored(call), (record) => ({
                callId: call.id,
                projectId,
                status: call.status,
                direction: call.direction,
                createdAt: toDate(call.createdAt),
                record
              })))
            const inserted = yield* orDie(sql<{ callId: string }>`
              insert into calls ${sql.insert(rows)} on conflict (call_id) do nothing returning call_id`)
            if (inserted.length !== created.length) return false
          }
          if (updated.length > 0) {
            const rows = yield* Effect.forEach(updated, (call) =>
              Effect.map(stored(call), (record) => ({ callId: call.id, status: call.status, record })))
            yield* orDie(sql`
              update calls set status = data.status, record = data.record::json
              from ${sql.updateValues(rows, "data")}
              where calls.call_id = data.call_id and calls.project_id = ${projectId}`)
          }
          if (applied.length > 0) {
            yield* orDie(sql`insert into call_signals ${sql.insert(applied.map((a) => ({
              callId: a.callId,
              signalId: a.signalId,
              appliedAt: toDate(a.appliedAt)
            })))} on conflict do nothing`)
          }
          return true
        }),
      list: ({ after, createdAfter, createdBefore, direction, limit, projectId, status }) =>
        calls(sql`
          select record from calls
          where ${sql.and([
            sql`project_id = ${projectId}`,
            status === undefined ? sql`true` : sql`status = ${status}`,
            direction === undefined ? sql`true` : sql`direction = ${direction}`,
            createdAfter === undefined ? sql`true` : sql`created_at > ${toDate(createdAfter)}`,
            createdBefore === undefined ? sql`true` : sql`created_at < ${toDate(createdBefore)}`,
            after === undefined ? sql`true` : sql`(created_at, call_id) < (${toDate(after.createdAt)}, ${after.callId})`
          ])}
          order by created_at desc, call_id desc
          limit ${limit}`)
    })
  })
)

export const VoiceReposSql = Layer.mergeAll(LinesRepoSql, VoiceProfilesRepoSql, CallsRepoSql)

// ---------------------------------------------------------------------------------------------
// The simulated line provider

/** Fictional numbers from `simulated_line_numbers`: the lowest free one, else the next in sequence. */
export const LineProviderSimulatedSql = Layer.effect(
  LineProvider,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return LineProvider.of({
      allocate: ({ platform }) =>
        Effect.gen(function*() {
          const reused = yield* orDie(sql<{ phoneNumber: string }>`
            update simulated_line_numbers s set in_use = true
            from (select n from simulated_line_numbers where not in_use order by n limit 1 for update skip locked) free
            where s.n = free.n
            returning s.phone_number`)
          if (reused[0] !== undefined) {
            return { phoneNumber: reused[0].phoneNumber, voiceCapable: simulatedVoiceCapable(platform) }
          }
          const [next] = yield* orDie(sql<{ n: string | number }>`select nextval('simulated_line_number_seq') as n`)
          const n = Number(next?.n)
          const phoneNumber = simulatedLineNumber(n)
          if (phoneNumber === undefined) {
            return yield* new LineUnavailable({ platform, message: "the simulated number range is used up" })
          }
          yield* orDie(sql`insert into simulated_line_numbers (n, phone_number, in_use) values (${n}, ${phoneNumber}, true)`)
          return { phoneNumber, voiceCapable: simulatedVoiceCapable(platform) }
        }),
      release: ({ phoneNumber }) =>
        orDie(sql`update simulated_line_numbers set in_use = false where phone_number = ${phoneNumber}`).pipe(Effect.asVoid)
    })
  })
)

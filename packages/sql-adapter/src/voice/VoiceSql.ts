/**
 * The Voice feature's SQL repositories (docs/api-notes/voice.md). Profiles and calls are
 * stored as the JSON of their core schema (`record`) next to the columns their lookups use; a
 * call's row lock (`lock`: `FOR UPDATE`) serialises concurrent signals of one call, and
 * `insert … ON CONFLICT DO NOTHING` decides between concurrent `started` signals. The unique index
 * on a project's default profile decides between concurrent creates of it.
 *
 * `LineProviderSimulatedSql` is the standalone server's simulated line provider: fictional numbers
 * (`simulatedLineNumber`) kept in `simulated_line_numbers`, so several server processes on one
 * database never hand out one number twice and released numbers are reused.
 */
import { SqlClient } from "effect/sql"
import { Voice } from "@switchboard/core"
import { formatTimestamp } from "@switchboard/core/shared"
import {
  CallsRepo,
  LinePlatform,
  LineProvider,
  type LineRecord,
  LinesRepo,
  LineUnavailable,
  makeCallEncoder,
  simulatedLineNumber,
  simulatedVoiceCapable,
  VoiceDefaultProfileExists,
  VoiceProfileRecord,
  VoiceProfilesRepo
} from "@switchboard/core/voice"
import { Effect, Layer, Option, Schema } from "effect"
import { DbTime, die, firstRow, isUniqueViolation, orDie, parseJson, recordsOf, type Rows, rowsOf, toDate } from "../shared/Sql.js"

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
const lineRows = rowsOf(LineRow)
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
    const select = (statement: Rows) => lineRows(statement).pipe(Effect.map((rows) => rows.map(toLineRecord)))

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
          where project_id = ${projectId} and released_at is null and phone_number is not null
          order by created_at, line_id`).pipe(Effect.map((rows) => rows.map((r) => r.line))),
      find: (projectId, lineId) =>
        Effect.map(
          select(sql`select ${cols} from lines where line_id = ${lineId} and project_id = ${projectId} and released_at is null and phone_number is not null`),
          firstRow
        ),
      lock: (projectId, lineId) =>
        Effect.map(
          select(sql`
            select ${cols} from lines where line_id = ${lineId} and project_id = ${projectId} and released_at is null
              and phone_number is not null
            for update`),
          firstRow
        ),
      release: ({ lineId, now, projectId }) =>
        select(sql`
          update lines set released_at = ${toDate(now)}, voice_profile_id = null
          where line_id = ${lineId} and project_id = ${projectId} and released_at is null and phone_number is not null
          returning ${cols}`).pipe(Effect.map((rows) => Option.map(firstRow(rows), (r) => r.line)))
    })
  })
)

// ---------------------------------------------------------------------------------------------
// Voice profiles

const encodeProfile = Schema.encodeEffect(VoiceProfileRecord)
const profileRecords = recordsOf(VoiceProfileRecord)

export const VoiceProfilesRepoSql = Layer.effect(
  VoiceProfilesRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const records = profileRecords
    const one = (statement: Rows) => Effect.map(records(statement), firstRow)
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
                : die(e))
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

const decodeCall = Schema.decodeUnknownEffect(Voice.Call)

export const CallsRepoSql = Layer.effect(
  CallsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const calls = recordsOf(Voice.Call)
    // The record's JSON, built without re-validating the call through the schema: every call
    // written here comes from the reducer, whose every applied call the schema accepts
    // (CallMachine.prop.test.ts), and every call read back is decoded by the schema.
    const stored = (call: Voice.Call) => Effect.sync(() => JSON.stringify(makeCallEncoder()(call)))

    return CallsRepo.of({
      find: (projectId, callId) =>
        Effect.map(calls(sql`select record from calls where call_id = ${callId} and project_id = ${projectId}`), firstRow),
      lock: (projectId, callId) =>
        Effect.map(calls(sql`select record from calls where call_id = ${callId} and project_id = ${projectId} for update`), firstRow),
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
            Effect.forEach(rows, (r) => Effect.map(decodeCall(parseJson(r.record)), (call) => ({ call, signalApplied: r.signalApplied })))
        )).pipe(Effect.map(firstRow)),
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
      loadBatch: ({ callIds, profileIds, projectId, signalIds }) =>
        Effect.gen(function*() {
          // One statement: the calls locked in call-id order (two batches touching the same calls
          // never deadlock), the ids among `signalIds` each of the project's calls has applied, and
          // which of `profileIds` the project has. Arrays go as one parameter each.
          const rows = yield* orDie(sql<{ kind: "call" | "profile"; id: string; projectId: string | null; record: unknown; applied: ReadonlyArray<string> | null }>`
            with locked as (
              select call_id, project_id, record from calls
              where call_id = any(${[...callIds]}::text[])
              order by call_id
              for update
            )
            select 'call' as kind, l.call_id as id, l.project_id::text as project_id, l.record,
              case when l.project_id = ${projectId}::uuid then array(
                select s.signal_id from call_signals s where s.call_id = l.call_id and s.signal_id = any(${[...signalIds]}::text[])
              ) end as applied
            from locked l
            union all
            select 'profile', p.profile_id, null, null, null from voice_profiles p
            where p.project_id = ${projectId}::uuid and p.profile_id = any(${[...profileIds]}::text[])`)
          const found = new Map<string, { readonly call: Voice.Call; readonly applied: ReadonlySet<string> }>()
          const elsewhere = new Set<string>()
          const profiles = new Set<string>()
          for (const r of rows) {
            if (r.kind === "profile") profiles.add(r.id)
            else if (r.projectId !== projectId) elsewhere.add(r.id)
            else found.set(r.id, { call: yield* orDie(decodeCall(parseJson(r.record))), applied: new Set(r.applied ?? []) })
          }
          return { calls: found, elsewhere, profiles }
        }),
      writeBatch: ({ applied, created, projectId, updated }) =>
        Effect.gen(function*() {
          if (created.length === 0 && updated.length === 0 && applied.length === 0) return true
          // In id order, like the locks: concurrent batches creating the same calls never deadlock.
          const fresh = [...created].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          const record = makeCallEncoder()
          const text = (call: Voice.Call) => JSON.stringify(record(call))
          // One statement, arrays as one parameter each: the new calls (skipping ids taken
          // meanwhile), then — only if every new call was inserted — the changed calls and the
          // applied ids. The foreign keys of the applied ids are checked at its end, when the new
          // calls exist.
          const [row] = yield* orDie(sql<{ ok: boolean }>`
            with new_calls as (
              insert into calls (call_id, project_id, status, direction, created_at, record)
              select n.call_id, ${projectId}::uuid, n.status, n.direction, n.created_at, n.record::json
              from unnest(
                ${fresh.map((c) => c.id)}::text[], ${fresh.map((c) => c.status)}::text[],
                ${fresh.map((c) => c.direction)}::text[], ${fresh.map((c) => formatTimestamp(c.createdAt))}::timestamptz[],
                ${fresh.map(text)}::text[]
              ) as n(call_id, status, direction, created_at, record)
              order by n.call_id
              on conflict (call_id) do nothing
              returning call_id
            ),
            complete as (select count(*) = ${fresh.length} as ok from new_calls),
            changed as (
              update calls c set status = u.status, record = u.record::json
              from complete, unnest(${updated.map((c) => c.id)}::text[], ${updated.map((c) => c.status)}::text[], ${updated.map(text)}::text[])
                as u(call_id, status, record)
              where complete.ok and c.call_id = u.call_id and c.project_id = ${projectId}::uuid
              returning c.call_id
            ),
            applied as (
              insert into call_signals (call_id, signal_id, applied_at)
              select a.call_id, a.signal_id, a.applied_at
              from complete, unnest(
                ${applied.map((a) => a.callId)}::text[], ${applied.map((a) => a.signalId)}::text[],
                ${applied.map((a) => formatTimestamp(a.appliedAt))}::timestamptz[]
              ) as a(call_id, signal_id, applied_at)
              where complete.ok
              on conflict do nothing
              returning call_id
            )
            select ok from complete`)
          return row?.ok === true
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

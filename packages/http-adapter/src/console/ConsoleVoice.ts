/**
 * Voice in the console: the project's calls (status, direction, parties, key presses) with the
 * calls per hour drawn as a chart, one call's status timeline and DTMF, the voice profiles (the
 * default one and others created here), and the lines with the profile each uses (assigned here,
 * or back to the default).
 */
import { type Call, Calls, Lines, VoiceMediaEncryption, VoiceProfiles } from "@switchboard/core/voice"
import { BoundedString } from "@switchboard/core/shared"
import { DateTime, Effect, Schema } from "effect"
import { hourlyChart, perHour, timelineChart, type TimelinePoint } from "./ConsoleCharts.js"
import { badge, csrfField, emptyState, html, idChip, raw, table, when } from "./ConsoleHtml.js"
import { action, type ConsoleCtx, page, param, redirect, type View } from "./ConsoleKit.js"
import { makeProjectChrome, projectIdOf, projectTabs } from "./ConsoleProjects.js"
import type { ConsoleRouter } from "./ConsoleRoutes.js"
import { DashboardProjects } from "@switchboard/core/dashboard"
import { envelopeFailure } from "../http/Surfaces.js"

const ProfileForm = Schema.Struct({
  name: Schema.optional(BoundedString(0, 128)),
  mediaEncryption: VoiceMediaEncryption
})

const mediaOptions = html`<option value="auto">auto (SRTP when the other side offers it)</option><option value="srtp">SRTP required</option>`

const AssignForm = Schema.Struct({
  lineId: BoundedString(1, 100),
  profileId: BoundedString(0, 100),
  expectedVersion: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })))
})

/** The statuses of a call that has ended (the others are in progress). */
export const ended: ReadonlySet<string> = new Set(["completed", "busy", "no-answer", "rejected", "canceled", "failed"])
const callSeries = [
  { label: "completed", colour: "#15803d" },
  { label: "in progress", colour: "#4f46e5" },
  { label: "not connected", colour: "#dc2626" }
]
const callSeriesOf = (c: Call) => (c.status === "completed" ? 0 : ended.has(c.status) ? 2 : 1)

const party = (p: { readonly id: string; readonly handle?: string | undefined }) => p.handle ?? p.id

/** A call's milestones and key presses in time order, for the timeline. */
export const callTimeline = (c: Call): ReadonlyArray<TimelinePoint> => {
  // The milestones a call's status has reached; the others are absent.
  const t: { readonly [K in "startedAt" | "ringingAt" | "answeredAt" | "connectedAt" | "endedAt"]?: DateTime.Utc } = c.timestamps
  const milestones: Array<TimelinePoint> = ([
    ["started", t.startedAt],
    ["ringing", t.ringingAt],
    ["answered", t.answeredAt],
    ["connected", t.connectedAt],
    [c.status === "completed" || !ended.has(c.status) ? "ended" : c.status, t.endedAt]
  ] as const).flatMap(([label, at]) => (at === undefined ? [] : [{ label, at: DateTime.toEpochMillis(at) }]))
  const keys = c.dtmfInputs.map((k) => ({ label: "key", detail: k.digit, at: DateTime.toEpochMillis(k.timestamp) }))
  return [...milestones, ...keys].sort((a, b) => a.at - b.at)
}

const statusTone = (s: string) => (s === "completed" ? "ok" : ended.has(s) ? "bad" : "plain") as "ok" | "bad" | "plain"

export const voiceRoutes = (router: ConsoleRouter) =>
  Effect.gen(function*() {
    const calls = yield* Calls
    const profiles = yield* VoiceProfiles
    const lines = yield* Lines
    const projects = yield* DashboardProjects
    const chrome = yield* makeProjectChrome

    const voiceView = (ctx: ConsoleCtx) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const project = yield* projects.open(projectId, ctx.principal, "read")
        const recent = (yield* calls.list(projectId, ctx.principal, { pageSize: 100 })).calls
        const profileList = (yield* profiles.list(projectId, ctx.principal, { pageSize: 100 })).profiles
        const lineList = (yield* lines.list(projectId)).filter((l) => l.voiceCapable)
        const assignments = yield* Effect.forEach(lineList, (l) => profiles.getAssignment(projectId, ctx.principal, l.lineId))
        const base = `/console/projects/${projectId}/voice`
        const now = Date.now()
        return {
          title: "Voice",
          lede: "Calls on the project's lines, the voice profiles they use, and which line uses which profile.",
          ...(yield* chrome(ctx, project, [{ label: "Voice" }])),
          tabs: projectTabs(projectId, base),
          body: html`<section class="card" aria-labelledby="calls"><h2 id="calls">Calls</h2>
${hourlyChart("Calls per hour", callSeries, perHour(recent, (c) => DateTime.toEpochMillis(c.createdAt), callSeriesOf, 3, now), now, "no calls in the last 24 hours.")}
${
            table("Calls", ["Started", "Status", "Direction", "From", "To", "Keys"], recent.map((c) => [
              html`<a href="${base}/calls/${c.id}">${when(c.createdAt)}</a>`,
              badge(c.status, statusTone(c.status)),
              c.direction,
              party(c.caller),
              party(c.callee),
              c.dtmfInputs.map((k) => k.digit).join("") || "—"
            ]), emptyState("No calls yet.", lineList.length === 0 ? "Calls appear here once the project has a voice line and a call is placed or received on it." : "Calls placed or received on the project's lines appear here, with their status timeline and key presses."))
          }</section>
<section class="card" aria-labelledby="profiles"><h2 id="profiles">Voice profiles</h2>
${
            table("Voice profiles", ["Name", "Default", "Protocol", "Media encryption", "Lines"], profileList.map((p) => [
              p.name,
              p.isDefault ? "yes" : "no",
              p.protocol,
              p.mediaEncryption,
              String(p.lineCount)
            ]), emptyState(
              "No voice profiles yet.",
              "A voice profile says how the project's lines place and take calls (SIP, and whether media is encrypted). Create the default one here; every line uses it until you assign another.",
              html`<form method="post" action="${base}/profiles" class="row">${csrfField(ctx.csrf)}
<div><label for="default-encryption">Media encryption</label><select id="default-encryption" name="mediaEncryption">${mediaOptions}</select></div>
<button type="submit">Create the default profile</button></form>`
            ))
          }
${
            profileList.length === 0 ? "" : html`<h3>New voice profile</h3><form method="post" action="${base}/profiles" class="row">${csrfField(ctx.csrf)}
<div><label for="profile-name">Name</label><input id="profile-name" name="name" required maxlength="128"></div>
<div><label for="profile-encryption">Media encryption</label><select id="profile-encryption" name="mediaEncryption">${mediaOptions}</select></div>
<button type="submit" class="secondary">Add profile</button></form>`
          }</section>
<section class="card" aria-labelledby="lines"><h2 id="lines">Lines</h2>
${
            table("Lines and their profiles", ["Number", "Profile", ""], lineList.map((l, i) => {
              const a = assignments[i]!
              return [
                l.phoneNumber,
                a.profileId === undefined ? "default" : profileList.find((p) => p.profileId === a.profileId)?.name ?? a.profileId,
                html`<form method="post" action="${base}/lines/assign" class="row">${csrfField(ctx.csrf)}
<input type="hidden" name="lineId" value="${l.lineId}"><input type="hidden" name="expectedVersion" value="${String(a.resourceVersion)}">
<label for="assign-${l.lineId}">Profile for ${l.phoneNumber}</label><select id="assign-${l.lineId}" name="profileId">
<option value="">the default profile</option>${
                  profileList.filter((p) => !p.isDefault).map((p) => html`<option value="${p.profileId}"${p.profileId === a.profileId ? raw(" selected") : ""}>${p.name}</option>`)
                }</select><button type="submit" class="secondary">Assign</button></form>`
              ]
            }), emptyState("No voice lines yet.", "Lines are the phone numbers the project places and takes calls on; each uses the default voice profile until you assign another here."))
          }</section>`
        } satisfies View
      })

    const callView = (ctx: ConsoleCtx) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const project = yield* projects.open(projectId, ctx.principal, "read")
        const call = yield* calls.get(projectId, ctx.principal, param(ctx, "callId"))
        return {
          title: `Call from ${party(call.caller)} to ${party(call.callee)}`,
          ...(yield* chrome(ctx, project, [{ label: "Voice", href: `/console/projects/${projectId}/voice` }, { label: "Call" }])),
          tabs: projectTabs(projectId, `/console/projects/${projectId}/voice`),
          body: html`<section class="card" aria-labelledby="call"><h2 id="call">Call</h2><dl class="facts">
<dt>Call id</dt><dd>${idChip(call.id, "call id")}</dd>
<dt>Status</dt><dd>${badge(call.status, statusTone(call.status))}</dd><dt>Direction</dt><dd>${call.direction}</dd>
<dt>From</dt><dd>${party(call.caller)}</dd><dt>To</dt><dd>${party(call.callee)}</dd>
<dt>Voice profile</dt><dd>${idChip(call.voiceProfile.id, "voice profile id")}</dd></dl></section>
<section class="card" aria-labelledby="timeline"><h2 id="timeline">Timeline</h2>${timelineChart("Status timeline", callTimeline(call))}</section>
<section class="card" aria-labelledby="dtmf"><h2 id="dtmf">Key presses (DTMF)</h2>
${table("Key presses", ["Key", "When", "By"], call.dtmfInputs.map((k) => [html`<code>${k.digit}</code>`, when(k.timestamp), k.actorId]), "No keys pressed.")}
${call.dtmfInputsTruncated ? html`<p class="muted">Only the latest 100 key presses are kept.</p>` : ""}</section>`
        } satisfies View
      })

    const base = "/console/projects/:projectId/voice"
    yield* router.get(base, page(voiceView))
    yield* router.get(`${base}/calls/:callId`, page(callView))
    yield* router.post(`${base}/profiles`, action(voiceView, (ctx, form) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const body = yield* form.as(ProfileForm)
        const existing = yield* profiles.list(projectId, ctx.principal, { pageSize: 1 })
        if (existing.profiles.length === 0) {
          yield* profiles.createDefault(projectId, ctx.principal, { protocol: "sip", mediaEncryption: body.mediaEncryption })
        } else {
          if (body.name === undefined || body.name.trim() === "") return yield* envelopeFailure(422, "VALIDATION_FAILED", "name: give the profile a name.")
          yield* profiles.create(projectId, ctx.principal, { name: body.name.trim(), protocol: "sip", mediaEncryption: body.mediaEncryption })
        }
        return redirect(`/console/projects/${projectId}/voice`, "created")
      })))
    yield* router.post(`${base}/lines/assign`, action(voiceView, (ctx, form) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const body = yield* form.as(AssignForm)
        if (body.profileId === "") yield* profiles.unassign(projectId, ctx.principal, body.lineId, body.expectedVersion)
        else yield* profiles.assign(projectId, ctx.principal, body.lineId, { profileId: body.profileId, expectedVersion: body.expectedVersion })
        return redirect(`/console/projects/${projectId}/voice`, "saved")
      })))
  })

export const voiceRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/console/projects/:projectId/voice"],
  ["GET", "/console/projects/:projectId/voice/calls/:callId"],
  ["POST", "/console/projects/:projectId/voice/profiles"],
  ["POST", "/console/projects/:projectId/voice/lines/assign"]
]

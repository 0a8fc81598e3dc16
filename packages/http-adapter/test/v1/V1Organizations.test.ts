import {
  CreateInvitationResponse,
  InvitationId,
  InvitationsRepo,
  ListMembersResponse,
  Membership,
  Organization
} from "@switchboard/core/organizations"
import { sha256Hex } from "@switchboard/core/internal"
import { OrganizationId, AccountId, formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { testBackends } from "@switchboard/sql-adapter"
import { DateTime, Effect, Result, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { expectProblem, httpClient } from "../support/HttpClient.js"

const json = (body: unknown) => JSON.stringify(body)
let seq = 0
const idem = () => `org-key-${Date.now()}-${++seq}`
const uniqueEmail = (name: string) => `${name}.${Date.now()}.${++seq}@example.com`
const decodes = (schema: Schema.Codec<any, any>, value: unknown) =>
  Result.isSuccess(Schema.decodeUnknownResult(schema, { onExcessProperty: "error" })(value))
const unknownOrganization = () => formatTypeId(IdKinds.organization, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10))))
const unknownInvitation = () => formatTypeId(IdKinds.invitation, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10))))

for (const backend of testBackends()) {
  describe(`/v1 organizations, members and invitations (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend)
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const post = (path: string, payload: unknown, key: string, headers: Record<string, string> = {}) =>
      call(path, {
        method: "POST",
        key,
        headers: { "content-type": "application/json", ...headers },
        body: typeof payload === "string" ? payload : json(payload)
      })

    /** A new account: its id, email and service key. */
    const person = async (name: string) => {
      const email = uniqueEmail(name)
      const a = await s.newAccount(email)
      return { ...a, email }
    }
    const createOrg = async (key: string, name = "Acme") => {
      const r = await post("/v1/organizations", { name }, key)
      expect(r.res.status, JSON.stringify(r.body)).toBe(201)
      return r.body.organizationId as string
    }
    const invite = (orgId: string, email: string, role: string, key: string, idemKey = idem()) =>
      post(`/v1/organizations/${orgId}/invitations`, { email, role }, key, { "idempotency-key": idemKey })
    const accept = (token: string, key: string) => call(`/v1/invitations/${token}/accept`, { method: "POST", key })
    /** `who` joins `orgId` with `role` through an invitation sent by `by`. */
    const join = async (orgId: string, who: { email: string; serviceKey: string }, role: string, by: string) => {
      const inv = await invite(orgId, who.email, role, by)
      expect(inv.res.status, JSON.stringify(inv.body)).toBe(201)
      const r = await accept(inv.body.token, who.serviceKey)
      expect(r.res.status, JSON.stringify(r.body)).toBe(200)
      return r.body
    }
    const members = async (orgId: string, key: string) => {
      const r = await call(`/v1/organizations/${orgId}/members?pageSize=100`, { key })
      expect(r.res.status).toBe(200)
      return r.body.members as Array<{ accountId: string; role: string; email: string }>
    }
    const remove = (orgId: string, accountId: string, key: string) =>
      call(`/v1/organizations/${orgId}/members/${accountId}`, { method: "DELETE", key })

    it("POST /v1/organizations creates an organization (201) whose creator is its owner", async () => {
      const me = await person("creator")
      const r = await post("/v1/organizations", { name: "Acme Inc." }, me.serviceKey)
      expect(r.res.status).toBe(201)
      expect(decodes(Organization, r.body)).toBe(true)
      expect(r.body.organizationId).toMatch(/^sb_org_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(r.body.name).toBe("Acme Inc.")
      expect(r.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect(r.body.updatedAt).toBe(r.body.createdAt)
      const list = await members(r.body.organizationId, me.serviceKey)
      expect(list).toEqual([{ accountId: me.accountId, email: me.email, role: "owner", joinedAt: r.body.createdAt }])
      const long = await post("/v1/organizations", { name: "n".repeat(256) }, me.serviceKey)
      expect(long.res.status).toBe(201)
    })

    it("GET /v1/organizations pages the caller's organizations, oldest first, and no one else's", async () => {
      const me = await person("lister")
      const other = await person("other-lister")
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) ids.push(await createOrg(me.serviceKey, `org ${i}`))
      await createOrg(other.serviceKey, "not mine")
      // An organization joined by invitation is listed too.
      const joined = await createOrg(other.serviceKey, "joined")
      await join(joined, me, "member", other.serviceKey)
      const all = await call("/v1/organizations", { key: me.serviceKey })
      expect(all.res.status).toBe(200)
      expect(all.body.organizations.map((o: any) => o.organizationId)).toEqual([...ids, joined])
      expect(all.body).not.toHaveProperty("nextPageToken")
      expect(all.body.organizations.every((o: any) => decodes(Organization, o))).toBe(true)

      const seen: Array<string> = []
      let token: string | undefined
      let pages = 0
      do {
        const r = await call(`/v1/organizations?pageSize=2${token === undefined ? "" : `&pageToken=${encodeURIComponent(token)}`}`, {
          key: me.serviceKey
        })
        expect(r.res.status).toBe(200)
        expect(r.body.organizations.length).toBeLessThanOrEqual(2)
        seen.push(...r.body.organizations.map((o: any) => o.organizationId))
        token = r.body.nextPageToken
        pages++
      } while (token !== undefined)
      expect(pages).toBe(3)
      expect(seen).toEqual([...ids, joined])
      const fresh = await person("no-orgs")
      const none = await call("/v1/organizations", { key: fresh.serviceKey })
      expect(none.body).toEqual({ organizations: [] })
    })

    it("422 VALIDATION_FAILED for bad bodies, page sizes, page tokens and path parameters", async () => {
      const me = await person("validator")
      const orgId = await createOrg(me.serviceKey)
      const bodies: Array<[unknown, string, string]> = [
        [{ name: "" }, "/name", "json"],
        [{ name: "n".repeat(257) }, "/name", "json"],
        [{}, "/name", "json"],
        [{ name: 7 }, "/name", "json"],
        [{ name: "x", extra: true }, "/extra", "json"],
        ["{\"name\":", "", "body"]
      ]
      for (const [payload, path, location] of bodies) {
        const r = await post("/v1/organizations", payload, me.serviceKey)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues.some((i: any) => i.path === path && i.location === location), JSON.stringify([payload, r.body])).toBe(true)
      }
      const first = await call(`/v1/organizations/${orgId}/members?pageSize=1`, { key: me.serviceKey })
      expect(first.res.status).toBe(200)
      const otherOrg = await createOrg(me.serviceKey)
      await createOrg(me.serviceKey)
      const listToken = (await call("/v1/organizations?pageSize=1", { key: me.serviceKey })).body.nextPageToken as string
      expect(listToken).toBeDefined()
      const queries: Array<[string, string]> = [
        ["/v1/organizations?pageSize=0", "/pageSize"],
        ["/v1/organizations?pageSize=101", "/pageSize"],
        ["/v1/organizations?pageSize=abc", "/pageSize"],
        ["/v1/organizations?pageSize=2.5", "/pageSize"],
        ["/v1/organizations?pageSize=1&pageSize=2", "/pageSize"],
        ["/v1/organizations?pageToken=garbage", "/pageToken"],
        [`/v1/organizations?pageToken=${encodeURIComponent(listToken.slice(0, -2))}`, "/pageToken"],
        // A token of one list does not page another.
        [`/v1/organizations/${otherOrg}/members?pageToken=${encodeURIComponent(listToken)}`, "/pageToken"],
        [`/v1/organizations/${orgId}/invitations?pageSize=500`, "/pageSize"]
      ]
      for (const [path, pointer] of queries) {
        const r = await call(path, { key: me.serviceKey })
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues[0], path).toMatchObject({ location: "query", path: pointer })
      }
      // Another account cannot replay this account's token either.
      const other = await person("token-thief")
      await createOrg(other.serviceKey)
      const stolen = await call(`/v1/organizations?pageToken=${encodeURIComponent(listToken)}`, { key: other.serviceKey })
      expectProblem(stolen, 422, "VALIDATION_FAILED")
      const badParams = [
        ["GET", "/v1/organizations/not-an-org/members", "/organizationId"],
        ["DELETE", `/v1/organizations/${orgId}/members/nobody`, "/accountId"],
        ["DELETE", `/v1/organizations/${orgId}/invitations/sb_inv_x`, "/invitationId"],
        ["POST", "/v1/invitations/too-short/accept", "/token"]
      ] as const
      for (const [method, path, pointer] of badParams) {
        const r = await call(path, { method, key: me.serviceKey })
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues[0], path).toMatchObject({ location: "param", path: pointer })
      }
      const invitationBodies: Array<[unknown, string]> = [
        [{ email: "not-an-email", role: "member" }, "/email"],
        [{ email: "a@example.com", role: "superuser" }, "/role"],
        [{ email: "a@example.com" }, "/role"],
        [{ email: `${"a".repeat(250)}@example.com`, role: "member" }, "/email"]
      ]
      for (const [payload, pointer] of invitationBodies) {
        const r = await invite(orgId, (payload as any).email, (payload as any).role, me.serviceKey)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues.some((i: any) => i.path === pointer && i.location === "json"), JSON.stringify(r.body)).toBe(true)
      }
    })

    it("401 NOT_AUTHENTICATED with WWW-Authenticate on every route without a valid credential", async () => {
      const orgId = unknownOrganization()
      const routes = [
        ["POST", "/v1/organizations"],
        ["GET", "/v1/organizations"],
        ["GET", `/v1/organizations/${orgId}/members`],
        ["DELETE", `/v1/organizations/${orgId}/members/${s.accountId}`],
        ["POST", `/v1/organizations/${orgId}/invitations`],
        ["GET", `/v1/organizations/${orgId}/invitations`],
        ["DELETE", `/v1/organizations/${orgId}/invitations/${unknownInvitation()}`],
        ["POST", `/v1/invitations/${"A".repeat(43)}/accept`]
      ] as const
      for (const [method, path] of routes) {
        const none = await call(path, { method, key: null })
        expectProblem(none, 401, "NOT_AUTHENTICATED")
        expect(none.res.headers.get("www-authenticate")).toBe(`Bearer realm="api"`)
        const bad = await call(path, { method, key: "sb_ask_01m7zvg8epecnadf5bkm51v23z_" + "a".repeat(52) })
        expectProblem(bad, 401, "NOT_AUTHENTICATED")
        expect(bad.res.headers.get("www-authenticate")).toContain(`error="invalid_token"`)
      }
    })

    it("members: members see everyone with emails and roles, in pages; non-members get 404 RESOURCE_NOT_FOUND", async () => {
      const owner = await person("m-owner")
      const admin = await person("m-admin")
      const member = await person("m-member")
      const stranger = await person("m-stranger")
      const orgId = await createOrg(owner.serviceKey)
      const adminMembership = await join(orgId, admin, "admin", owner.serviceKey)
      expect(decodes(Membership, adminMembership)).toBe(true)
      await join(orgId, member, "member", admin.serviceKey)
      const page1 = await call(`/v1/organizations/${orgId}/members?pageSize=2`, { key: member.serviceKey })
      expect(page1.res.status).toBe(200)
      expect(decodes(ListMembersResponse, page1.body)).toBe(true)
      expect(page1.body.members.map((m: any) => [m.accountId, m.email, m.role])).toEqual([
        [owner.accountId, owner.email, "owner"],
        [admin.accountId, admin.email, "admin"]
      ])
      const page2 = await call(`/v1/organizations/${orgId}/members?pageSize=2&pageToken=${encodeURIComponent(page1.body.nextPageToken)}`, {
        key: member.serviceKey
      })
      expect(page2.body.members.map((m: any) => m.accountId)).toEqual([member.accountId])
      expect(page2.body).not.toHaveProperty("nextPageToken")
      expect(page2.body.members[0].joinedAt).toMatch(/Z$/)
      expectProblem(await call(`/v1/organizations/${orgId}/members`, { key: stranger.serviceKey }), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`/v1/organizations/${unknownOrganization()}/members`, { key: owner.serviceKey }), 404, "RESOURCE_NOT_FOUND")
    })

    it("removeMember: owners and admins remove, admins not owners, members only themselves; 204", async () => {
      const owner = await person("r-owner")
      const admin = await person("r-admin")
      const admin2 = await person("r-admin2")
      const member = await person("r-member")
      const member2 = await person("r-member2")
      const stranger = await person("r-stranger")
      const orgId = await createOrg(owner.serviceKey)
      for (const [who, role] of [[admin, "admin"], [admin2, "admin"], [member, "member"], [member2, "member"]] as const) {
        await join(orgId, who, role, owner.serviceKey)
      }
      expectProblem(await remove(orgId, member2.accountId, member.serviceKey), 403, "FORBIDDEN")
      expectProblem(await remove(orgId, admin.accountId, member.serviceKey), 403, "FORBIDDEN")
      const adminOnOwner = await remove(orgId, owner.accountId, admin.serviceKey)
      expectProblem(adminOnOwner, 403, "FORBIDDEN")
      expect(adminOnOwner.body.detail).toMatch(/Admins cannot remove owners/)
      expectProblem(await remove(orgId, member.accountId, stranger.serviceKey), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await remove(orgId, stranger.accountId, owner.serviceKey), 404, "RESOURCE_NOT_FOUND")

      const byAdmin = await remove(orgId, member2.accountId, admin.serviceKey)
      expect(byAdmin.res.status).toBe(204)
      expect(byAdmin.text).toBe("")
      expect(byAdmin.res.headers.get("x-request-id")).toMatch(/^sb_req_/)
      const byOwner = await remove(orgId, admin2.accountId, owner.serviceKey)
      expect(byOwner.res.status).toBe(204)
      const leaving = await remove(orgId, member.accountId, member.serviceKey)
      expect(leaving.res.status).toBe(204)
      expect((await members(orgId, owner.serviceKey)).map((m) => m.accountId)).toEqual([owner.accountId, admin.accountId])
      // Gone members no longer see the organization.
      expectProblem(await call(`/v1/organizations/${orgId}/members`, { key: member.serviceKey }), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await remove(orgId, member.accountId, owner.serviceKey), 404, "RESOURCE_NOT_FOUND")
    })

    it("removeMember: the last owner can neither leave nor be removed (409 FAILED_PRECONDITION); with two owners one may go", async () => {
      const owner = await person("lo-owner")
      const second = await person("lo-second")
      const orgId = await createOrg(owner.serviceKey)
      const alone = await remove(orgId, owner.accountId, owner.serviceKey)
      expectProblem(alone, 409, "FAILED_PRECONDITION")
      expect(alone.body.detail).toMatch(/last owner/)
      expect(alone.body.reason).toBe("last_owner")
      await join(orgId, second, "owner", owner.serviceKey)
      const removed = await remove(orgId, owner.accountId, second.serviceKey)
      expect(removed.res.status).toBe(204)
      const last = await remove(orgId, second.accountId, second.serviceKey)
      expectProblem(last, 409, "FAILED_PRECONDITION")
      expect((await members(orgId, second.serviceKey)).map((m) => [m.accountId, m.role])).toEqual([[second.accountId, "owner"]])
    })

    it("createInvitation: 201 {invitation, token}; the token is 43 base64url characters, shown once, valid 7 days", async () => {
      const owner = await person("i-owner")
      const orgId = await createOrg(owner.serviceKey)
      const r = await invite(orgId, "Someone.New@Example.com", "admin", owner.serviceKey)
      expect(r.res.status).toBe(201)
      expect(r.res.headers.get("cache-control")).toBe("no-store")
      expect(decodes(CreateInvitationResponse, r.body)).toBe(true)
      expect(r.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      const inv = r.body.invitation
      expect(Object.keys(inv).sort()).toEqual(
        ["acceptedAt", "createdAt", "email", "expiresAt", "invitationId", "organizationId", "revokedAt", "role"]
      )
      expect(inv).toMatchObject({ organizationId: orgId, email: "Someone.New@Example.com", role: "admin", acceptedAt: null, revokedAt: null })
      expect(inv.invitationId).toMatch(/^sb_inv_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(Date.parse(inv.expiresAt) - Date.parse(inv.createdAt)).toBe(7 * 86_400_000)
      const listed = await call(`/v1/organizations/${orgId}/invitations`, { key: owner.serviceKey })
      expect(listed.res.status).toBe(200)
      expect(listed.body.invitations).toEqual([inv])
      expect(listed.text).not.toContain(r.body.token)
      // Only the token's hash is stored.
      const stored = await s.run(Effect.flatMap(InvitationsRepo, (repo) =>
        Effect.flatMap(sha256Hex(r.body.token), (hash) => repo.findByTokenHash(hash))))
      expect(stored._tag).toBe("Some")
    })

    it("createInvitation: Idempotency-Key required; a replay returns the same token; another body with the key is 422", async () => {
      const owner = await person("idem-owner")
      const orgId = await createOrg(owner.serviceKey)
      const missing = await post(`/v1/organizations/${orgId}/invitations`, { email: "a@example.com", role: "member" }, owner.serviceKey)
      expectProblem(missing, 400, "IDEMPOTENCY_KEY_REQUIRED")
      expectProblem(await invite(orgId, "a@example.com", "member", owner.serviceKey, "bad key with spaces"), 400, "IDEMPOTENCY_KEY_INVALID")
      const key = idem()
      const first = await invite(orgId, "replay@example.com", "member", owner.serviceKey, key)
      expect(first.res.status).toBe(201)
      const replay = await post(`/v1/organizations/${orgId}/invitations`, `{"role":"member", "email":"replay@example.com"}`, owner.serviceKey, {
        "idempotency-key": key
      })
      expect(replay.res.status).toBe(201)
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual(first.body)
      expect(replay.body.token).toBe(first.body.token)
      const listed = await call(`/v1/organizations/${orgId}/invitations`, { key: owner.serviceKey })
      expect(listed.body.invitations).toHaveLength(1)
      expectProblem(await invite(orgId, "other@example.com", "member", owner.serviceKey, key), 422, "IDEMPOTENCY_KEY_REUSED")
      // The same key on another organization's path is a different request too.
      const orgB = await createOrg(owner.serviceKey)
      expectProblem(await invite(orgB, "replay@example.com", "member", owner.serviceKey, key), 422, "IDEMPOTENCY_KEY_REUSED")
    })

    it("createInvitation: admins not as owner, members not at all (403); strangers 404; an existing member 409", async () => {
      const owner = await person("ir-owner")
      const admin = await person("ir-admin")
      const member = await person("ir-member")
      const stranger = await person("ir-stranger")
      const orgId = await createOrg(owner.serviceKey)
      await join(orgId, admin, "admin", owner.serviceKey)
      await join(orgId, member, "member", owner.serviceKey)
      expect((await invite(orgId, uniqueEmail("x"), "owner", owner.serviceKey)).res.status).toBe(201)
      expect((await invite(orgId, uniqueEmail("x"), "admin", admin.serviceKey)).res.status).toBe(201)
      const adminOwner = await invite(orgId, uniqueEmail("x"), "owner", admin.serviceKey)
      expectProblem(adminOwner, 403, "FORBIDDEN")
      expect(adminOwner.body.detail).toMatch(/Admins cannot invite owners/)
      expectProblem(await invite(orgId, uniqueEmail("x"), "member", member.serviceKey), 403, "FORBIDDEN")
      expectProblem(await invite(orgId, uniqueEmail("x"), "member", stranger.serviceKey), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await invite(unknownOrganization(), uniqueEmail("x"), "member", owner.serviceKey), 404, "RESOURCE_NOT_FOUND")
      const already = await invite(orgId, member.email.toUpperCase(), "admin", owner.serviceKey)
      expectProblem(already, 409, "FAILED_PRECONDITION")
      expect(already.body.reason).toBe("already_member")
    })

    it("acceptInvitation: the invited email only (403 otherwise), once (409), unknown token 404; → Membership", async () => {
      const owner = await person("a-owner")
      const invitee = await person("a-invitee")
      const wrong = await person("a-wrong")
      const orgId = await createOrg(owner.serviceKey)
      const inv = await invite(orgId, invitee.email.toUpperCase(), "admin", owner.serviceKey)
      const refused = await accept(inv.body.token, wrong.serviceKey)
      expectProblem(refused, 403, "FORBIDDEN")
      expect(refused.body.detail).toMatch(/another email/)
      const ok = await accept(inv.body.token, invitee.serviceKey)
      expect(ok.res.status).toBe(200)
      expect(decodes(Membership, ok.body)).toBe(true)
      expect(ok.body).toMatchObject({ organizationId: orgId, accountId: invitee.accountId, email: invitee.email, role: "admin" })
      expect((await members(orgId, invitee.serviceKey)).map((m) => m.accountId)).toContain(invitee.accountId)
      const twice = await accept(inv.body.token, invitee.serviceKey)
      expectProblem(twice, 409, "FAILED_PRECONDITION")
      expect(twice.body.reason).toBe("invitation_accepted")
      const gone = await accept("A".repeat(21) + "_-" + "z".repeat(20), invitee.serviceKey)
      expectProblem(gone, 404, "RESOURCE_NOT_FOUND")
      // No longer pending.
      expect((await call(`/v1/organizations/${orgId}/invitations`, { key: owner.serviceKey })).body.invitations).toEqual([])
    })

    it("acceptInvitation: an existing member gets 409 (already_member) and the invitation stays pending", async () => {
      const owner = await person("am-owner")
      const invitee = await person("am-invitee")
      const orgId = await createOrg(owner.serviceKey)
      const first = await invite(orgId, invitee.email, "member", owner.serviceKey)
      await join(orgId, invitee, "admin", owner.serviceKey)
      const r = await accept(first.body.token, invitee.serviceKey)
      expectProblem(r, 409, "FAILED_PRECONDITION")
      expect(r.body.reason).toBe("already_member")
      const pending = await call(`/v1/organizations/${orgId}/invitations`, { key: owner.serviceKey })
      expect(pending.body.invitations.map((i: any) => i.invitationId)).toEqual([first.body.invitation.invitationId])
    })

    it("acceptInvitation: an expired invitation is 409 (invitation_expired) and no longer listed", async () => {
      const owner = await person("e-owner")
      const invitee = await person("e-invitee")
      const orgId = await createOrg(owner.serviceKey)
      // Age an invitation by storing one created eight days ago.
      const token = "Expired_Invitation-Token_0123456789abcdefgh".slice(0, 43)
      const createdAt = DateTime.makeUnsafe(Date.now() - 8 * 86_400_000)
      await s.run(Effect.gen(function*() {
        const repo = yield* InvitationsRepo
        yield* repo.insert({
          invitationId: InvitationId.make(unknownInvitation()),
          organizationId: OrganizationId.make(orgId),
          email: invitee.email,
          role: "member",
          invitedByAccountId: AccountId.make(owner.accountId),
          createdAt,
          expiresAt: DateTime.makeUnsafe(DateTime.toEpochMillis(createdAt) + 7 * 86_400_000),
          acceptedAt: null,
          acceptedByAccountId: null,
          revokedAt: null
        }, yield* sha256Hex(token))
      }))
      const r = await accept(token, invitee.serviceKey)
      expectProblem(r, 409, "FAILED_PRECONDITION")
      expect(r.body.reason).toBe("invitation_expired")
      expect(r.body.detail).toMatch(/expired/)
      expect((await call(`/v1/organizations/${orgId}/invitations`, { key: owner.serviceKey })).body.invitations).toEqual([])
      expectProblem(await call(`/v1/organizations/${orgId}/members`, { key: invitee.serviceKey }), 404, "RESOURCE_NOT_FOUND")
    })

    it("revokeInvitation: owners and admins, repeatable with the same revokedAt; a revoked token cannot be accepted", async () => {
      const owner = await person("rv-owner")
      const admin = await person("rv-admin")
      const member = await person("rv-member")
      const invitee = await person("rv-invitee")
      const stranger = await person("rv-stranger")
      const orgId = await createOrg(owner.serviceKey)
      await join(orgId, admin, "admin", owner.serviceKey)
      await join(orgId, member, "member", owner.serviceKey)
      const inv = await invite(orgId, invitee.email, "member", owner.serviceKey)
      const id = inv.body.invitation.invitationId
      const revoke = (key: string, invitationId = id, org = orgId) =>
        call(`/v1/organizations/${org}/invitations/${invitationId}`, { method: "DELETE", key })
      expectProblem(await revoke(member.serviceKey), 403, "FORBIDDEN")
      expectProblem(await revoke(stranger.serviceKey), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await revoke(owner.serviceKey, unknownInvitation()), 404, "RESOURCE_NOT_FOUND")
      const otherOrg = await createOrg(owner.serviceKey)
      expectProblem(await revoke(owner.serviceKey, id, otherOrg), 404, "RESOURCE_NOT_FOUND")
      const first = await revoke(admin.serviceKey)
      expect(first.res.status).toBe(200)
      expect(first.body.invitation).toMatchObject({ invitationId: id, acceptedAt: null })
      expect(first.body.invitation.revokedAt).toMatch(/Z$/)
      await new Promise((r) => setTimeout(r, 5))
      const again = await revoke(owner.serviceKey)
      expect(again.res.status).toBe(200)
      expect(again.body).toEqual(first.body)
      const refused = await accept(inv.body.token, invitee.serviceKey)
      expectProblem(refused, 409, "FAILED_PRECONDITION")
      expect(refused.body.reason).toBe("invitation_revoked")
      // An accepted invitation cannot be revoked.
      const used = await invite(orgId, invitee.email, "member", owner.serviceKey)
      expect((await accept(used.body.token, invitee.serviceKey)).res.status).toBe(200)
      const late = await revoke(owner.serviceKey, used.body.invitation.invitationId)
      expectProblem(late, 409, "FAILED_PRECONDITION")
      expect(late.body.reason).toBe("invitation_accepted")
    })

    it("listInvitations: pending ones for owners and admins, in pages; members 403, strangers 404", async () => {
      const owner = await person("li-owner")
      const member = await person("li-member")
      const stranger = await person("li-stranger")
      const orgId = await createOrg(owner.serviceKey)
      await join(orgId, member, "member", owner.serviceKey)
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) ids.push((await invite(orgId, uniqueEmail("pending"), "member", owner.serviceKey)).body.invitation.invitationId)
      const page1 = await call(`/v1/organizations/${orgId}/invitations?pageSize=2`, { key: owner.serviceKey })
      expect(page1.body.invitations.map((i: any) => i.invitationId)).toEqual(ids.slice(0, 2))
      const page2 = await call(`/v1/organizations/${orgId}/invitations?pageSize=2&pageToken=${encodeURIComponent(page1.body.nextPageToken)}`, {
        key: owner.serviceKey
      })
      expect(page2.body.invitations.map((i: any) => i.invitationId)).toEqual(ids.slice(2))
      expect(page2.body).not.toHaveProperty("nextPageToken")
      expectProblem(await call(`/v1/organizations/${orgId}/invitations`, { key: member.serviceKey }), 403, "FORBIDDEN")
      expectProblem(await call(`/v1/organizations/${orgId}/invitations`, { key: stranger.serviceKey }), 404, "RESOURCE_NOT_FOUND")
    })

    it("OpenAPI lists the routes with their problems and the Idempotency-Key of createInvitation", async () => {
      const r = await call("/openapi.json", { key: null })
      const paths = r.body.paths
      expect(paths["/v1/organizations"].post.operationId).toBe("organizations.createOrganization")
      const pageSize = paths["/v1/organizations"].get.parameters.find((p: any) => p.name === "pageSize")
      expect(pageSize).toMatchObject({ in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 100 } })
      expect(paths["/v1/organizations"].get.parameters.some((p: any) => p.name === "pageToken")).toBe(true)
      const create = paths["/v1/organizations/{organizationId}/invitations"].post
      expect(create.parameters.some((p: any) => p.name === "Idempotency-Key" && p.required)).toBe(true)
      expect(create.responses["201"]).toBeDefined()
      expect(create.responses["404"].description).toContain("RESOURCE_NOT_FOUND")
      expect(create.responses["409"].description).toContain("FAILED_PRECONDITION")
      const removeOp = paths["/v1/organizations/{organizationId}/members/{accountId}"].delete
      expect(removeOp.responses["204"]).toBeDefined()
      expect(removeOp.responses["409"].description).toContain("FAILED_PRECONDITION")
      expect(removeOp.parameters.some((p: any) => p.name === "Idempotency-Key")).toBe(false)
      expect(paths["/v1/invitations/{token}/accept"].post.responses["403"].description).toContain("FORBIDDEN")
      expect(r.body.components.schemas.Invitation).toBeDefined()
    })
  })
}

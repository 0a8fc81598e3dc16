/**
 * Inbound messages carrying a one-time code (docs/provisioning.md's filtered verification codes fed
 * by docs/messages.md's fact ingestion): a `received` fact naming one of the project's resources
 * whose text carries a code is held back — it shows in the filtered-code count and list (project
 * and resource), no message record, no `message.received` event (so no webhook), never the code;
 * the fact is applied with its `filteredCodeId` and a repeat is ignored. An ordinary inbound is a
 * message as before; a resource the project does not hold rejects the fact.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { factsOf, messageEvents, messagesPath, newMessageId } from "../support/MessagesHttp.js"
import { runWorker } from "../support/PlatformsHttp.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { idem, newProject } from "../support/VoiceHttp.js"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { giveCard, whatsappTestAdapters } from "../support/WhatsappHttp.js"

for (const backend of testBackends()) {
  describe(`/v1 message facts: OTP-bearing inbound messages are held back (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, {}, whatsappTestAdapters())
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const base = (p: string) => `/v1/projects/${p}/platforms`
    const smsNumber = async (p: string) => {
      const r = await call(`${base(p)}/sms/numbers`, { method: "POST", json: { countryCode: "US" }, idem: idem() })
      await runWorker(s)
      return (await call(`${base(p)}/operations/${r.body.operationId}`)).body.resource.resourceId as string
    }
    let n = 0
    /** A WhatsApp Business sender of the project (a card on file, then the worker connects it). */
    const whatsappSender = async (p: string) => {
      await giveCard(s, p)
      const r = await call(`${base(p)}/whatsapp-business/numbers`, {
        method: "POST",
        json: { code: "ok", wabaId: `waba-otp-${Date.now()}-${++n}`, phoneNumberId: `pn-otp-${Date.now() % 100000}${n}` },
        idem: idem()
      })
      expect(r.res.status, r.text).toBe(202)
      await runWorker(s)
      return (await call(`${base(p)}/operations/${r.body.operationId}`)).body.resource.resourceId as string
    }
    const ingest = async (p: string, facts: ReadonlyArray<unknown>) => {
      const r = await call(`${messagesPath(p)}/facts`, { method: "POST", json: { facts } })
      expect(r.res.status, r.text).toBe(200)
      return r.body.results as Array<any>
    }
    const recently = Date.now() - 60_000

    it("an OTP-bearing inbound is counted and listed, per project and per resource; no record, no event; a repeat is ignored", async () => {
      const p = await newProject(s, call)
      const a = await smsNumber(p)
      const b = await whatsappSender(p)
      const otp = newMessageId()
      const wa = newMessageId()
      const plain = newMessageId()
      const fo = factsOf(otp, recently)
      const fw = factsOf(wa, recently)
      const fp = factsOf(plain, recently)
      const facts = [
        fo.received(1, "sms", `${otp}:r`, "Your verification code is 482913", a),
        fw.received(2, "whatsapp_business", `${wa}:r`, "Your WhatsApp code 123-456. Don't share this code", b),
        fp.received(3, "sms", `${plain}:r`, "see you at 6 at gate 4821", a)
      ]
      const results = await ingest(p, facts)
      expect(results.map((r) => [r.outcome, r.reason, r.message?.status])).toEqual([
        ["applied", undefined, undefined],
        ["applied", undefined, undefined],
        ["applied", undefined, "received"]
      ])
      expect(results[0].filteredCodeId).toMatch(/^sb_msg_/)
      expect(results[1].filteredCodeId).toMatch(/^sb_msg_/)
      expect(results[2].filteredCodeId).toBeUndefined()

      // Held back: no record, no event, not in the list of messages.
      for (const id of [otp, wa]) {
        expect((await call(`${messagesPath(p)}/${id}`)).res.status).toBe(404)
        expect(await messageEvents(s, p, id)).toEqual([])
      }
      expect((await call(`${messagesPath(p)}/${plain}`)).body.status).toBe("received")
      expect((await messageEvents(s, p, plain)).map((e) => e.type)).toEqual(["message.received"])
      const listed = await call(messagesPath(p))
      expect(listed.body.messages.map((m: any) => m.id)).toEqual([plain])

      // The filtered codes, never the code.
      expect((await call(`${base(p)}/filtered-otp/count`)).body.count).toBe(2)
      const list = await call(`${base(p)}/filtered-otp`)
      expect(list.body.codes.map((c: any) => [c.filteredCodeId, c.resourceId, c.platform, c.receivedAt])).toEqual([
        [results[1].filteredCodeId, b, "whatsapp", fw.ts(2)],
        [results[0].filteredCodeId, a, "sms", fo.ts(1)]
      ])
      expect(list.text).not.toMatch(/482913|123-?456/)
      expect((await call(`${base(p)}/resources/${a}/filtered-otp/count`)).body.count).toBe(1)
      expect((await call(`${base(p)}/resources/${b}/filtered-otp`)).body.codes.map((c: any) => c.filteredCodeId))
        .toEqual([results[1].filteredCodeId])

      // A repeated fact (again, or in the same batch twice) applies once.
      const again = await ingest(p, [facts[0], facts[0], facts[2]])
      expect(again.map((r) => [r.outcome, r.reason])).toEqual([
        ["ignored", "duplicate-fact"],
        ["ignored", "duplicate-fact"],
        ["ignored", "duplicate-fact"]
      ])
      const fresh = newMessageId()
      const twice = factsOf(fresh, recently).received(4, "sms", `${fresh}:r`, "code 777777", a)
      expect((await ingest(p, [twice, twice])).map((r) => r.outcome)).toEqual(["applied", "ignored"])
      expect((await call(`${base(p)}/resources/${a}/filtered-otp/count`)).body.count).toBe(2)
      expect((await call(`${base(p)}/filtered-otp/count`)).body.count).toBe(3)
    })

    it("a resource the project does not hold rejects the fact; without a resource an inbound is a message as before", async () => {
      const p = await newProject(s, call)
      const mine = await smsNumber(p)
      const theirs = await smsNumber(await newProject(s, call))
      const ids = [newMessageId(), newMessageId(), newMessageId(), newMessageId()]
      const results = await ingest(p, [
        factsOf(ids[0]!, recently).received(1, "sms", undefined, "Your code is 111111", "sb_lin_unknown"),
        factsOf(ids[1]!, recently).received(1, "sms", undefined, "Your code is 222222", theirs),
        factsOf(ids[2]!, recently).received(1, "sms", undefined, "Your code is 333333"),
        factsOf(ids[3]!, recently).received(1, "sms", undefined, "lunch?", mine)
      ])
      expect(results.map((r) => [r.outcome, r.reason])).toEqual([
        ["rejected", "unknown-resource"],
        ["rejected", "unknown-resource"],
        ["applied", undefined],
        ["applied", undefined]
      ])
      expect(results.map((r) => r.message?.status)).toEqual([undefined, undefined, "received", "received"])
      expect((await call(`${messagesPath(p)}/${ids[0]}`)).res.status).toBe(404)
      expect((await call(`${base(p)}/filtered-otp/count`)).body.count).toBe(0)
      // A released resource is no longer held.
      await call(`${base(p)}/resources/${mine}`, { method: "DELETE" })
      const late = newMessageId()
      expect((await ingest(p, [factsOf(late, recently).received(2, "sms", undefined, "code 444444", mine)])).map((r) => r.reason))
        .toEqual(["unknown-resource"])
      // An over-long resource id is bad input: the batch is refused, nothing changes.
      const bad = await call(`${messagesPath(p)}/facts`, {
        method: "POST",
        json: { facts: [factsOf(newMessageId(), recently).received(1, "sms", undefined, "code 555555", "x".repeat(257))] }
      })
      expect(bad.res.status, bad.text).toBe(422)
    })

    it("a held resource of a type that does not fit the message's platform refuses the batch (422 naming the fact's field); nothing is written", async () => {
      const p = await newProject(s, call)
      const sms = await smsNumber(p)
      const sender = await whatsappSender(p)
      const ids = [newMessageId(), newMessageId(), newMessageId()]
      const facts = [
        factsOf(ids[0]!, recently).received(1, "sms", `${ids[0]}:r`, "lunch?", sms),
        factsOf(ids[1]!, recently).received(1, "sms", `${ids[1]}:r`, "Your code is 654321", sms),
        factsOf(ids[2]!, recently).received(1, "whatsapp", `${ids[2]}:r`, "hi", sms)
      ]
      const refused = await call(`${messagesPath(p)}/facts`, { method: "POST", json: { facts } })
      expectProblem(refused, 422, "VALIDATION_FAILED")
      expect(refused.body.issues).toEqual([{
        code: "invalid_value",
        location: "json",
        message: `resource ${sms} is a sms_number; a whatsapp message may name only whatsapp_line or whatsapp_sender.`,
        path: "/facts/2/data/resourceId"
      }])
      // Nothing of the batch was written: no message, no filtered code, and the facts apply later.
      expect((await call(`${messagesPath(p)}/${ids[0]}`)).res.status).toBe(404)
      expect((await call(`${base(p)}/filtered-otp/count`)).body.count).toBe(0)
      // Each platform's own resource types pass; a platform of no known shape is not checked.
      const other = newMessageId()
      const results = await ingest(p, [
        facts[0],
        facts[1],
        factsOf(ids[2]!, recently).received(1, "whatsapp", `${ids[2]}:r`, "hi", sender),
        factsOf(other, recently).received(1, "acme_chat", `${other}:r`, "hi", sms)
      ])
      expect(results.map((r) => [r.outcome, r.reason])).toEqual([
        ["applied", undefined],
        ["applied", undefined],
        ["applied", undefined],
        ["applied", undefined]
      ])
      expect(results[1].filteredCodeId).toMatch(/^sb_msg_/)
      // An SMS fact naming the WhatsApp sender is refused the same way, at its own index.
      const wrong = newMessageId()
      const again = await call(`${messagesPath(p)}/facts`, {
        method: "POST",
        json: { facts: [factsOf(wrong, recently).received(1, "sms", `${wrong}:r`, "hi", sender)] }
      })
      expectProblem(again, 422, "VALIDATION_FAILED")
      expect(again.body.issues.map((i: any) => i.path)).toEqual(["/facts/0/data/resourceId"])
      expect((await call(`${messagesPath(p)}/${wrong}`)).res.status).toBe(404)
    })
  })
}

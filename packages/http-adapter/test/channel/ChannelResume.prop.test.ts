/**
 * Property of resume (docs/event-channel.md), on a real server: random interleavings of commits,
 * reconnects and `startSeq` values (0, any seq committed so far, the last one seen). Each session
 * must receive exactly the committed events after its cursor, in seq order, none missing and none
 * twice — including events committed while it is still catching up from the store. Bounded: few
 * runs.
 */
import { StreamTokens } from "@switchboard/core/events"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect } from "effect"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { channelUrl, commitEvents, connect, type Frames, newChannelProject } from "../support/ChannelClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

type Action = { readonly _tag: "commit"; readonly n: number } | { readonly _tag: "reconnect"; readonly pick: number }

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ _tag: fc.constant("commit" as const), n: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ _tag: fc.constant("reconnect" as const), pick: fc.integer({ min: 0, max: 100 }) })
)

for (const backend of testBackends()) {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer(backend, { channelHeartbeatMs: 500, webhookDeliveryEnabled: false })
  })
  afterAll(async () => {
    await s?.close()
  })

  const commit = (projectId: string, n: number) => commitEvents(s, projectId, n)

  describe(`event channel resume property (${backend})`, () => {
    it("no interleaving of commits, reconnects and startSeq values loses or repeats an event", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(action, { minLength: 2, maxLength: 6 }), async (actions) => {
          const p = await newChannelProject(s)
          const { token } = await s.run(Effect.flatMap(StreamTokens, (t) => t.mint(p.projectId)))
          const committed: Array<number> = []
          let session: { c: Frames; after: number } | undefined
          const open = async (startSeq: number) => {
            const c = connect(channelUrl(s), "switchboard.events.v1.json")
            await c.opened
            c.send({ type: "init", startSeq, token })
            await c.next((f) => f.type === "ready")
            // startSeq 0: the live tail — everything committed from here on.
            return { c, after: startSeq === 0 ? (committed.at(-1) ?? 0) : startSeq }
          }
          /** The session got exactly the committed events after its cursor, in order. */
          const check = async (x: { c: Frames; after: number }) => {
            const expected = committed.filter((q) => q > x.after)
            if (expected.length > 0) await x.c.next((f) => f.type === "event" && f.seq === expected.at(-1), 20_000)
            const got = x.c.frames.filter((f) => f.type === "event").map((f) => f.seq as number)
            expect(got).toEqual(expected)
          }
          session = await open(0)
          for (const a of actions) {
            if (a._tag === "commit") {
              committed.push(...(await commit(p.projectId, a.n)))
            } else {
              await check(session)
              session.c.ws.close()
              const choices = [0, ...committed]
              session = await open(choices[a.pick % choices.length]!)
            }
          }
          await check(session)
          session.c.ws.close()
        }),
        { numRuns: 6 }
      )
    }, 180_000)
  })
}

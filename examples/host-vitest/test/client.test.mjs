// The host's test of its calls to Switchboard, with no server and no database: Switchboard mounted
// on the in-memory store, its web handler as the typed client's `fetch`.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createV1Client, makeV1Client, SwitchboardProblem } from "@switchboard/http-adapter/client"
import { mountSwitchboard } from "@switchboard/http-adapter/mount"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"

let switchboard
const baseUrl = "http://switchboard.test"
const viaHandler = (input, init) => switchboard.handler(new Request(input, init))

beforeAll(async () => {
  switchboard = await mountSwitchboard({ surfaces: ["v1"], store: { kind: "memory" }, publicUrl: baseUrl, bootstrap: { email: "host@example.com" } })
})
afterAll(() => switchboard.dispose())

describe("the typed /v1 client against Switchboard in memory", () => {
  it("Promise client: typed answers and a problem as a SwitchboardProblem", async () => {
    const client = createV1Client({ baseUrl, token: switchboard.bootstrap.serviceKey, fetch: viaHandler })
    expect((await client.account.getAccount()).email).toBe("host@example.com")
    const org = await client.organizations.createOrganization({ payload: { name: "Host Co" } })
    expect(org.name).toBe("Host Co")
    const refused = await createV1Client({ baseUrl, token: "sb_ask_wrong", fetch: viaHandler }).account.getAccount().catch((e) => e)
    expect(refused).toBeInstanceOf(SwitchboardProblem)
    expect(refused.code).toBe("NOT_AUTHENTICATED")
  })

  it("Effect client: the declared problem is in the error channel", async () => {
    const program = Effect.gen(function*() {
      const client = yield* makeV1Client({ baseUrl, token: switchboard.bootstrap.serviceKey })
      const account = yield* client.account.getAccount()
      const failure = yield* Effect.flip(client.account.revokeAccountServiceKey({ params: { serviceKeyId: "sb_ask_10000000000000000000000000" } }))
      return { email: account.email, code: failure.code }
    })
    const http = Layer.mergeAll(FetchHttpClient.layer, Layer.succeed(FetchHttpClient.Fetch, viaHandler))
    expect(await Effect.runPromise(program.pipe(Effect.provide(http)))).toEqual({ email: "host@example.com", code: "ACCOUNT_SERVICE_KEY_NOT_FOUND" })
  })
})

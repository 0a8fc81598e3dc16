/**
 * Request fibers carry the platform's services and the application's settings only (serveLean in
 * Http.ts). A setting a host provides must still reach a handler that reads it at request time:
 * the stream token's lifetime (`ChannelPolicy`, read when a token is minted) is the host's, not the
 * default 900 s. And `settingsOf` keeps settings, never other services.
 */
import { ChannelPolicy } from "@switchboard/core/events"
import { Setting, settingKeys, settingsOf } from "@switchboard/core/internal"
import { TokenAudience } from "@switchboard/core/oauth"
import { testBackends } from "@switchboard/sql-adapter"
import { Context, Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mintToken, newChannelProject } from "../support/ChannelClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

class HostSetting extends Setting<HostSetting>()("test/HostSetting", { defaultValue: () => "default" }) {}
class HostService extends Context.Service<HostService, string>()("test/HostService") {}

describe("settingsOf", () => {
  it("keeps exactly the entries declared with Setting", () => {
    const context = Context.make(HostService, "service").pipe(
      Context.add(HostSetting, "host"),
      Context.add(TokenAudience, { issuer: "https://i.example", audience: "https://a.example" })
    )
    const picked = settingsOf(context as Context.Context<never>)
    expect([...picked.mapUnsafe.keys()].sort()).toEqual(["core/TokenAudience", "test/HostSetting"])
    expect(Context.get(picked as Context.Context<HostSetting>, HostSetting)).toBe("host")
    expect(settingKeys().has("core/ChannelPolicy")).toBe(true)
    expect(settingKeys().has("test/HostService")).toBe(false)
  })

  it("a setting not provided still reads its default", () =>
    Effect.runPromise(Effect.gen(function*() {
      expect(yield* HostSetting).toBe("default")
    }).pipe(Effect.provide(settingsOf(Context.empty() as Context.Context<never>)))))
})

describe("a host's setting reaches a handler that reads it per request", () => {
  let s: TestServer
  beforeAll(async () => {
    const policy = Layer.succeed(ChannelPolicy, { tokenTtlSeconds: 123, replyWaitMs: 10_000, presenceMs: 45_000 })
    s = await startTestServer(testBackends()[0]!, { webhookDeliveryEnabled: false }, policy, undefined, { tls: true })
  })
  afterAll(async () => {
    await s?.close()
  })

  it("the stream token lives as long as the host's ChannelPolicy says", async () => {
    const p = await newChannelProject(s)
    const { expiresIn, token } = await mintToken(s, p.projectId, p.secret)
    expect(expiresIn).toBe(123)
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { exp: number }
    expect(claims.exp - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(123)
    expect(claims.exp - Math.floor(Date.now() / 1000)).toBeGreaterThan(60)
  })
})

/**
 * The real spectrum-ts client (a devDependency) against the real server over TLS
 * (docs/event-channel.md): a child `node --experimental-websocket` process (the SDK needs a global
 * WebSocket) runs the SDK with only SPECTRUM_CLOUD_URL and SPECTRUM_FUSOR_WS_URL pointed at us and
 * the test certificate trusted (NODE_EXTRA_CA_CERTS). It mints its token, connects, receives an
 * event posted to an ingress URL, and its handler's reply is the poster's HTTP response. After the
 * project secret is rotated, its session is closed when the token expires (4401) and it can mint no
 * new one.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newChannelProject, type SdkClient, startSdkClient, until } from "../support/ChannelClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const script = join(import.meta.dirname, "fixtures", "spectrumClient.mjs")

for (const backend of testBackends()) {
  let s: TestServer
  let sdk: SdkClient | undefined
  beforeAll(async () => {
    s = await startTestServer(backend, { channelTokenTtlSeconds: 8, channelHeartbeatMs: 1_000, ingressReplyWaitMs: 15_000 }, undefined, undefined, {
      tls: true
    })
  })
  afterAll(async () => {
    sdk?.child.kill("SIGKILL")
    await s?.close()
  })

  describe(`spectrum-ts SDK end to end (${backend})`, () => {
    it("mints, connects over wss, handles an ingress event and its reply answers the poster; a rotated secret ends it", async () => {
      const p = await newChannelProject(s)
      const endpoint = await p.ingress("slack", "team-9")
      sdk = await startSdkClient(s, p, script)
      const out = () => sdk!.output()

      const res = await fetch(`${endpoint.url}/`.replace(/\/$/, ""), {
        method: "POST",
        headers: { "content-type": "application/json", "x-slack-signature": "v0=feed" },
        body: JSON.stringify({ type: "url_verification", challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" })
      })
      expect(res.status, out()).toBe(200)
      expect(res.headers.get("x-handled-by")).toBe("spectrum-ts")
      expect(await res.text()).toBe("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P")
      const handled = out().split("\n").filter((l) => l.startsWith("{\"handled\"")).map((l) => JSON.parse(l).handled)
      expect(handled).toHaveLength(1)
      expect(handled[0]).toMatchObject({ signature: "v0=feed", body: { type: "url_verification" } })
      expect(handled[0].path).toMatch(/^\/ingress\//)

      // Rotate: the SDK's token expires (8 s), the server closes with 4401, the SDK cannot mint again.
      await p.rotate()
      await until("the session to end after the token expired", async () => !(await sdk!.present()) && s.channel.sessionCount() === 0, 45_000)
      const after = await fetch(endpoint.url, { method: "POST", body: JSON.stringify({ challenge: "x" }) })
      expect(after.status).toBe(202)
      sdk.child.kill("SIGTERM")
    }, 150_000)
  })
}

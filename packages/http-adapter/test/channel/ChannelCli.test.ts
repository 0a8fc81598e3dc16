/**
 * The channel in the standalone server as an operator runs it (`switchboard serve`, embedded
 * database): a session over the plain listener, and SIGTERM closes it with 1001 (going away) as
 * part of the server's graceful shutdown (docs/event-channel.md).
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { bootstrapOf, cliEnv, startServer, stopServer } from "../support/CliProcess.js"
import { connect } from "../support/ChannelClient.js"

describe("event channel in switchboard serve", () => {
  it("serves /v1/subscribe and closes sessions with 1001 on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-channel-cli-"))
    const s = await startServer(cliEnv(dir, { CHANNEL_HEARTBEAT_MS: "500" }))
    try {
      const boot = bootstrapOf(s.output())!
      const send = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${s.baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${boot.serviceKey}`, "content-type": "application/json", "idempotency-key": `${path}-${Math.random()}` },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        expect(res.status, await res.clone().text()).toBeLessThan(300)
        return (await res.json()) as Record<string, any>
      }
      const org = await send("POST", "/v1/organizations", { name: "Cli" })
      const project = await send("POST", `/v1/organizations/${org.organizationId}/projects`, { name: "Cli", slug: `cli-${Date.now().toString(36)}` })
      const { projectSecret } = await send("POST", `/v1/projects/${project.projectId}/secret-rotations`)
      const tlsOrigin = /and (https:\/\/\S+)/.exec(s.output())![1]!
      // The generated certificate is self-signed: this client skips verification (the TLS tests verify it).
      process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0"
      const minted = await fetch(`${tlsOrigin}/projects/${project.projectId}/fusor/token`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from(`${project.projectId}:${projectSecret}`).toString("base64")}` }
      })
      delete process.env.NODE_TLS_REJECT_UNAUTHORIZED
      expect(minted.status).toBe(200)
      const { data } = (await minted.json()) as { data: { token: string } }
      const c = connect(`${s.baseUrl.replace("http", "ws")}/v1/subscribe`, "switchboard.events.v1.json")
      await c.opened
      c.send({ type: "init", startSeq: 0, token: data.token })
      expect(await c.next((f) => f.type === "ready")).toMatchObject({ projectId: project.projectId, heartbeatIntervalMs: 500 })
      await c.next((f) => f.type === "heartbeat")
      expect(await stopServer(s)).toBe(0)
      expect(c.frames.find((f) => f.type === "error")).toMatchObject({ code: "going_away", retryable: true })
      expect((await c.closed).code).toBe(1001)
    } finally {
      if (s.child.exitCode === null) await stopServer(s, "SIGKILL")
    }
  }, 120_000)
})

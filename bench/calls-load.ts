/** Signal batches from a child process (`calls-sender.ts`): the server's process pays only for serving them. */
import { fileURLToPath } from "node:url"
import type { TestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { BenchFailure, createProject } from "./lib.js"
import { runChild } from "./load.js"

const sender = fileURLToPath(new URL("./calls-sender.ts", import.meta.url))

export interface SignalLoad {
  readonly signals: number
  readonly seconds: number
  readonly signalsPerSecond: number
  readonly batches: number
  readonly p50: number
  readonly p99: number
}

export const signalLoadInChild = (options: {
  readonly url: string
  readonly headers: Record<string, string>
  readonly projectId: string
  readonly profileId: string
  readonly connections: number
  readonly seconds: number
  readonly label: string
}): Promise<SignalLoad> =>
  runChild(["--conditions=@switchboard/source", "--import", "tsx", sender, JSON.stringify((({ label: _label, ...args }) => args)(options))], options.label).then(({ code, stdout, stderr }) => {
    const last = stdout.trim().split("\n").pop() ?? ""
    let r: any
    try {
      r = JSON.parse(last)
    } catch {
      throw new BenchFailure(`${options.label}: the sender exited ${code}: ${stderr.slice(0, 500)}`)
    }
    if (code !== 0 || r.error !== undefined) throw new BenchFailure(`${options.label}: ${r.error ?? `the sender exited ${code}`}`)
    return r as SignalLoad
  })

/** Organization, project, default voice profile and an `events:write` project key on `server`. */
export const voiceFixture = async (server: TestServer) => {
  const { projectId, send } = await createProject(server)
  const voice = `/v1/projects/${projectId}/platforms/voice`
  const profile = await send("PUT", `${voice}/profiles/default`, { protocol: "sip" })
  const key = await send("POST", `/v1/projects/${projectId}/api-keys`, { name: "edge", permissions: ["events:write"] })
  return {
    url: `${server.baseUrl}${voice}/calls/signals`,
    headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
    projectId,
    profileId: profile.profileId as string
  }
}

/**
 * CPU time per request by stage, from a sampling profile of the warm window: each sample goes to
 * the nearest frame (leaf → root) that belongs to a known stage; samples with no such frame are the
 * Effect runtime's own work (fibers, context, scheduling) or Node's (HTTP parsing and writing, GC).
 */
import { Session } from "node:inspector/promises"

export type Stage = "middleware" | "auth" | "handler" | "SQL client" | "encode/decode" | "Effect runtime" | "HTTP (Node + platform)" | "GC" | "other"

const stageOf = (url: string, fn: string): Stage | undefined => {
  if (/pglite|^wasm:|@effect\/sql-pg|effect\/dist\/sql\/|packages\/sql-adapter|node_modules\/pg(-[a-z]+)?\//.test(url)) return "SQL client"
  if (/http-adapter\/src\/(http\/(Middleware|RequestContext|Surfaces|pipeline\/)|v1\/Lifecycle)|core\/src\/shared\/(RateLimit|Ids|Identifiers|Secrets|Sha256)/.test(url)) return "middleware"
  if (/http-adapter\/src\/v1\/Authn|core\/src\/identity\/(Authenticator|ProjectKeyVerifier|CredentialCache|Credential|AccessTokenVerifier)|core\/src\/shared\/Crypto/.test(url)) return "auth"
  if (/effect\/dist\/(Schema[A-Za-z]*\.js|internal\/schema\/|schema\/)|core\/src\/shared\/Timestamp/.test(url)) return "encode/decode"
  if (/http-adapter\/src\/v1\/|core\/src\//.test(url)) return "handler"
  if (fn === "(garbage collector)") return "GC"
  return undefined
}

const fallback = (url: string, fn: string): Stage =>
  /effect\/dist\/(http|http-api)\/|@effect\/platform-node|find-my-way|^node:|^$/.test(url) && fn !== "(idle)" && fn !== "(program)" ? "HTTP (Node + platform)"
  : /effect\/dist/.test(url) ? "Effect runtime"
  : "other"

export interface StageProfile {
  readonly stop: () => Promise<Record<Stage, number>>
}

/** Starts sampling; `stop` returns the share of sampled CPU time per stage (idle excluded, sums to 1). */
export const startStageProfile = async (): Promise<StageProfile> => {
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.setSamplingInterval", { interval: 200 })
  await session.post("Profiler.start")
  return {
    stop: async () => {
      const { profile } = await session.post("Profiler.stop")
      session.disconnect()
      const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
      const parent = new Map<number, number>()
      for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
      const shares: Record<string, number> = {}
      let total = 0
      const samples = profile.samples ?? []
      const deltas = profile.timeDeltas ?? []
      const memo = new Map<number, Stage | null>()
      for (let i = 0; i < samples.length; i++) {
        const leaf = nodes.get(samples[i]!)!
        if (leaf.callFrame.functionName === "(idle)") continue
        let stage = memo.get(leaf.id)
        if (stage === undefined) {
          let cur: number | undefined = leaf.id
          let found: Stage | undefined
          while (cur !== undefined && found === undefined) {
            const n = nodes.get(cur)!
            found = stageOf(n.callFrame.url, n.callFrame.functionName)
            cur = parent.get(cur)
          }
          stage = found ?? fallback(leaf.callFrame.url, leaf.callFrame.functionName)
          memo.set(leaf.id, stage)
        }
        const t = deltas[i] ?? 0
        shares[stage!] = (shares[stage!] ?? 0) + t
        total += t
      }
      for (const k of Object.keys(shares)) shares[k] = shares[k]! / Math.max(total, 1)
      return shares as Record<Stage, number>
    }
  }
}

/**
 * The app installation feature's memory layer (docs/app-installation.md): installation requests,
 * the apps' key sets and the used assertion `jti`s as tables of the shared `MemoryState` (they roll
 * back with transactions).
 */
import { AppInstallationsRepo, type AppKeySetRecord, type InstallationRequestRecord } from "@switchboard/core/oauth"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const requests = state.table<string, InstallationRequestRecord>("app_installation_requests")
  const keySets = state.table<string, AppKeySetRecord>("app_installation_keys")
  const jtis = state.table<string, DateTime.Utc>("app_installation_jtis")
  const find = (requestId: string) => Effect.sync(() => Option.fromNullishOr(requests.get(requestId)))

  return AppInstallationsRepo.of({
    insertRequest: (record) => Effect.sync(() => void requests.set(record.requestId, record)),
    findRequest: find,
    lockRequest: find,
    lockRequestByCode: (codeHash) => Effect.sync(() => Option.fromNullishOr([...requests.values()].find((r) => r.codeHash === codeHash))),
    updateRequest: (record) => Effect.sync(() => void requests.set(record.requestId, record)),
    listPending: ({ accountId, limit, now }) =>
      Effect.sync(() =>
        [...requests.values()]
          .filter((r) => r.accountId === accountId && r.status === "pending" && DateTime.toEpochMillis(r.expiresAt) > DateTime.toEpochMillis(now))
          .sort((a, b) => DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || (a.requestId < b.requestId ? 1 : -1))
          .slice(0, limit)
      ),
    findKeySet: (appId) => Effect.sync(() => Option.fromNullishOr(keySets.get(appId))),
    saveKeySet: (record) => Effect.sync(() => void keySets.set(record.appId, record)),
    claimAssertion: ({ appId, expiresAt, jti, now }) =>
      Effect.sync(() => {
        const prefix = `${appId}\u0000`
        for (const [key, until] of jtis) if (key.startsWith(prefix) && DateTime.toEpochMillis(until) <= DateTime.toEpochMillis(now)) jtis.delete(key)
        const key = `${prefix}${jti}`
        if (jtis.has(key)) return false
        jtis.set(key, expiresAt)
        return true
      })
  })
})

export const AppInstallationsMemory = Layer.effect(AppInstallationsRepo, make)

/**
 * The app installation flow's store port (docs/app-installation.md): installation requests (one row
 * each, from creation to delivery), the apps' registered key sets, and the `jti`s of the client
 * assertions already used (kept until the assertion expires, for replay protection).
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { AccountId } from "../shared/Identifiers.js"
import type { AppKeySetRecord, InstallationRequestRecord } from "./AppInstallationSchema.js"

export class AppInstallationsRepo extends Context.Service<AppInstallationsRepo, {
  readonly insertRequest: (record: InstallationRequestRecord) => Effect.Effect<void>
  readonly findRequest: (requestId: string) => Effect.Effect<Option.Option<InstallationRequestRecord>>
  /** Like `findRequest`, with the row locked until the surrounding transaction ends. */
  readonly lockRequest: (requestId: string) => Effect.Effect<Option.Option<InstallationRequestRecord>>
  /** The request whose delivery code has this SHA-256, locked until the surrounding transaction ends. */
  readonly lockRequestByCode: (codeHash: string) => Effect.Effect<Option.Option<InstallationRequestRecord>>
  /** Replaces the request's mutable fields (account, status, decision, code, delivery). */
  readonly updateRequest: (record: InstallationRequestRecord) => Effect.Effect<void>
  /** The account's pending requests that have not expired at `now`, newest first, at most `limit`. */
  readonly listPending: (args: { readonly accountId: AccountId; readonly now: DateTime.Utc; readonly limit: number }) => Effect.Effect<
    ReadonlyArray<InstallationRequestRecord>
  >
  readonly findKeySet: (appId: string) => Effect.Effect<Option.Option<AppKeySetRecord>>
  /** Replaces (or sets) the app's key set. */
  readonly saveKeySet: (record: AppKeySetRecord) => Effect.Effect<void>
  /**
   * Records that the app used `jti`, until `expiresAt`. False when the app already used it and
   * that use has not expired at `now` (a replay); an expired use is forgotten and the jti taken
   * again. The app's expired uses are dropped on the way.
   */
  readonly claimAssertion: (args: {
    readonly appId: string
    readonly jti: string
    readonly expiresAt: DateTime.Utc
    readonly now: DateTime.Utc
  }) => Effect.Effect<boolean>
}>()("core/AppInstallationsRepo") {}

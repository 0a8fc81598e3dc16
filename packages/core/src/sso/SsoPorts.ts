/**
 * Organization SSO (docs/sso.md): the store's port (`SsoRepo`: connections, pending sign-ins,
 * linked identities, SSO sessions), the outbound port to identity providers (`SsoOutbound`: OpenID
 * discovery, JWKS, the token request) and DNS TXT lookups (`DnsTxtResolver`). `Context.Tag`s with
 * no implementation.
 */
import { Context, DateTime, Effect, Option } from "effect"
import type { AccountId, OrganizationId } from "../shared/Identifiers.js"
import { SsoUpstreamFailure } from "./SsoErrors.js"

export type SsoDomainState = "verified" | "pending" | "failed"

export interface SsoDomainRecord {
  /** Lower case, without a trailing dot. */
  readonly domain: string
  readonly state: SsoDomainState
  /** The value the owner publishes at `_switchboard-sso.<domain>` (TXT). */
  readonly verificationToken: string
}

export type SsoConnectionState = "configuring" | "ready" | "error"

/** One organization's connection to an OpenID provider, and its policy. */
export interface SsoConnectionRecord {
  readonly organizationId: OrganizationId
  readonly issuer: string
  readonly clientId: string
  /** The client secret sealed under the server secret (`seal("sso-client-secret", …)`), base64url. */
  readonly clientSecretSealed: string
  readonly domains: ReadonlyArray<SsoDomainRecord>
  readonly jitEnabled: boolean
  /** What the owner asked for, and what is in force (only with a ready connection and a verified domain). */
  readonly desiredEnforced: boolean
  readonly enforced: boolean
  readonly state: SsoConnectionState
  readonly lastError: string | null
  /** Bumped whenever the provider settings change (pending sign-ins of an older one are refused). */
  readonly generation: number
  /** Bumped on every change (`expectedVersion`). */
  readonly version: number
  readonly changedAt: DateTime.Utc
}

export type SsoPurpose = "sign_in" | "invitation" | "admission" | "closure"

/** A sign-in begun at the provider, waiting for its callback (the `state` is stored as its SHA-256). */
export interface SsoLoginRecord {
  readonly stateHash: string
  readonly organizationId: OrganizationId
  readonly purpose: SsoPurpose
  readonly generation: number
  readonly codeVerifier: string
  readonly nonce: string
  readonly returnTo: string
  /** For `invitation`: the SHA-256 of the invitation token. */
  readonly invitationTokenHash: string | null
  /** For `admission` and `closure`: the account that asked. */
  readonly accountId: AccountId | null
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
}

/** A provider subject linked to an account. */
export interface SsoIdentityRecord {
  readonly organizationId: OrganizationId
  readonly issuer: string
  readonly subject: string
  readonly accountId: AccountId
  readonly createdAt: DateTime.Utc
}

export class SsoRepo extends Context.Service<SsoRepo, {
  readonly findConnection: (organizationId: OrganizationId) => Effect.Effect<Option.Option<SsoConnectionRecord>>
  /**
   * Writes the connection when the stored one has version `expectedVersion` (`null`: none is
   * stored); false (nothing written) otherwise.
   */
  readonly saveConnection: (record: SsoConnectionRecord, expectedVersion: number | null) => Effect.Effect<boolean>
  /** Deletes the connection of that version; false when there is none or another version. */
  readonly deleteConnection: (organizationId: OrganizationId, expectedVersion: number) => Effect.Effect<boolean>
  /** The connection claiming `domain` as verified, if any. */
  readonly findConnectionByVerifiedDomain: (domain: string) => Effect.Effect<Option.Option<SsoConnectionRecord>>
  readonly insertLogin: (login: SsoLoginRecord) => Effect.Effect<void>
  /** Deletes and returns the pending sign-in of that state hash when it has not expired at `now` (once). */
  readonly consumeLogin: (stateHash: string, now: DateTime.Utc) => Effect.Effect<Option.Option<SsoLoginRecord>>
  readonly findIdentity: (args: {
    readonly organizationId: OrganizationId
    readonly issuer: string
    readonly subject: string
  }) => Effect.Effect<Option.Option<SsoIdentityRecord>>
  /** Links a subject (a repeat of the same link changes nothing). */
  readonly insertIdentity: (identity: SsoIdentityRecord) => Effect.Effect<void>
  /** Records that a Dashboard session was opened through the organization's SSO. */
  readonly markSession: (args: {
    readonly sessionId: string
    readonly organizationId: OrganizationId
    readonly expiresAt: DateTime.Utc
  }) => Effect.Effect<void>
  /** The organizations a session was opened through by SSO. */
  readonly sessionOrganizations: (sessionId: string) => Effect.Effect<ReadonlyArray<OrganizationId>>
  /**
   * The plan codes the organization's projects are subscribed to, and the one of the
   * organization's own subscription (for the SSO entitlement), distinct, ascending.
   */
  readonly planCodesOf: (organizationId: OrganizationId) => Effect.Effect<ReadonlyArray<string>>
}>()("core/SsoRepo") {}

/** What an OpenID provider publishes at `{issuer}/.well-known/openid-configuration` (the members we use). */
export interface OidcProviderMetadata {
  readonly issuer: string
  readonly authorizationEndpoint: string
  readonly tokenEndpoint: string
  readonly jwksUri: string
}

/**
 * Calls to identity providers and DNS. Every call is bounded in time; an unreachable, slow or
 * misbehaving provider fails with `SsoUpstreamFailure` (never hangs). The adapter enforces the
 * operator's outbound rules (no private or loopback addresses unless allowed).
 */
export class SsoOutbound extends Context.Service<SsoOutbound, {
  readonly discover: (issuer: string) => Effect.Effect<OidcProviderMetadata, SsoUpstreamFailure>
  /** The provider's JSON Web Key Set (`{ keys: [...] }`). */
  readonly jwks: (uri: string) => Effect.Effect<{ readonly keys: ReadonlyArray<Record<string, unknown>> }, SsoUpstreamFailure>
  /** The authorization code grant with PKCE (client_secret_basic); the provider's `id_token`. */
  readonly exchangeCode: (args: {
    readonly tokenEndpoint: string
    readonly code: string
    readonly codeVerifier: string
    readonly redirectUri: string
    readonly clientId: string
    readonly clientSecret: string
  }) => Effect.Effect<{ readonly idToken: string }, SsoUpstreamFailure>
}>()("core/SsoOutbound") {}

/** DNS TXT lookups for the domain verification step (bounded in time like `SsoOutbound`). */
export class DnsTxtResolver extends Context.Service<DnsTxtResolver, {
  /** The TXT records at `name`, each joined from its strings (none when the name does not exist). */
  readonly resolveTxt: (name: string) => Effect.Effect<ReadonlyArray<string>, SsoUpstreamFailure>
}>()("core/DnsTxtResolver") {}

const unavailable = () =>
  Effect.fail(new SsoUpstreamFailure({ message: "This server has no outbound access to identity providers.", timedOut: false }))

/** A host that provides no `SsoOutbound` / `DnsTxtResolver` (an embedding without SSO): every call fails. */
export const outboundOrUnavailable = Effect.map(Effect.serviceOption(SsoOutbound), Option.getOrElse(() =>
  SsoOutbound.of({ discover: unavailable, jwks: unavailable, exchangeCode: unavailable })))
export const dnsOrUnavailable = Effect.map(Effect.serviceOption(DnsTxtResolver), Option.getOrElse(() =>
  DnsTxtResolver.of({ resolveTxt: unavailable })))

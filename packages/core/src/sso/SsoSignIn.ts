/**
 * Signing in through an organization's SSO (docs/sso.md): the four `Begin…` operations, the
 * callback, and enterprise login.
 *
 * - `begin` checks `returnTo`, the entitlement and the connection, then stores a pending sign-in
 *   under the SHA-256 of a fresh `state` (with the PKCE verifier, a `nonce` and what it is for) and
 *   returns the provider's authorization URL (code flow, S256, `state`, `nonce`). The URL alone
 *   grants nothing.
 * - `complete` (the callback) consumes the pending sign-in once, exchanges the code with the
 *   verifier and the unsealed client secret, verifies the ID token with `jose` against the
 *   provider's JWKS (signature, `iss`, `aud`, `exp`, `nonce`), requires an email in one of the
 *   connection's verified domains, maps the subject to an account (linked before, the account of
 *   that email, or a new one when JIT is on), applies the purpose (sign-in, invitation acceptance,
 *   admission, closure inspection) and opens a Dashboard session marked as SSO for the organization.
 */
import { Clock, Context, DateTime, Effect, Layer, Option, Redacted, Result } from "effect"
import { createLocalJWKSet, jwtVerify } from "jose"
import { Accounts } from "../accounts/Accounts.js"
import { AccountsRepo } from "../accounts/Ports.js"
import { Sessions } from "../dashboard/Sessions.js"
import { base64url, fromBase64url, sha256Hex } from "../internal/Crypto.js"
import { fn } from "../internal/Traced.js"
import { s256 } from "../oauth/Pkce.js"
import { InvitationsRepo } from "../organizations/InvitationsPorts.js"
import { OrganizationsRepo } from "../organizations/OrganizationsPorts.js"
import { Organizations } from "../organizations/Organizations.js"
import type { AccountId, OrganizationId } from "../shared/Identifiers.js"
import { Secrets } from "../shared/Secrets.js"
import { ServerSecret, unseal } from "../shared/ServerSecret.js"
import { CLIENT_SECRET_PURPOSE, OrganizationSso } from "./OrganizationSso.js"
import { InvalidReturnTo, SsoActionForbidden, SsoNotConfigured, SsoPreconditionFailed, SsoSignInRejected } from "./SsoErrors.js"
import { emailDomain, resolveReturnTo, SsoPolicy } from "./SsoPolicy.js"
import { outboundOrUnavailable, type SsoConnectionRecord, type SsoLoginRecord, type SsoPurpose, SsoRepo } from "./SsoPorts.js"

/** ID token algorithms we accept from providers (never `none`, never HMAC: the client secret is no key). */
export const ID_TOKEN_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
/** Clock skew allowed on `exp`/`iat`/`nbf`. */
export const CLOCK_TOLERANCE_SECONDS = 30

export interface BeginInput {
  readonly organizationId: OrganizationId
  readonly purpose: SsoPurpose
  readonly returnTo: string
  /** Admission and closure: the signed-in account asking. */
  readonly accountId?: AccountId
  /** Invitation: the invitation token. */
  readonly invitationToken?: string
}

export interface CompletedSignIn {
  readonly accountId: AccountId
  readonly organizationId: OrganizationId
  readonly sessionToken: Redacted.Redacted<string>
  readonly sessionExpiresAt: DateTime.Utc
  readonly returnTo: string
  readonly created: boolean
}

const reject = (reason: string) => Effect.fail(new SsoSignInRejected({ reason }))

export class SsoSignIn extends Context.Service<SsoSignIn>()("core/SsoSignIn", {
  make: Effect.gen(function*() {
    const repo = yield* SsoRepo
    const outbound = yield* outboundOrUnavailable
    const settings = yield* OrganizationSso
    const organizations = yield* Organizations
    const organizationsRepo = yield* OrganizationsRepo
    const invitations = yield* InvitationsRepo
    const accounts = yield* Accounts
    const accountsRepo = yield* AccountsRepo
    const sessions = yield* Sessions
    const secrets = yield* Secrets
    const secret = yield* ServerSecret
    const policy = yield* SsoPolicy

    const randomToken = Effect.map(secrets.randomBytes(32), base64url)

    const readyConnection = (organizationId: OrganizationId) =>
      Effect.gen(function*() {
        const found = yield* repo.findConnection(organizationId)
        if (Option.isNone(found)) return yield* new SsoNotConfigured({ organizationId, what: "sso" })
        if (found.value.state !== "ready") {
          return yield* new SsoPreconditionFailed({
            message: `The organization's SSO connection is ${found.value.state}; an owner must refresh it.`
          })
        }
        return found.value
      })

    /** The provider's authorization URL for one of the four purposes. */
    const begin = fn("SsoSignIn.begin")(function*(input: BeginInput) {
      const returnTo = resolveReturnTo(input.returnTo, policy)
      if (Result.isFailure(returnTo)) return yield* new InvalidReturnTo({ message: returnTo.failure })
      if (input.purpose === "admission" || input.purpose === "closure") {
        const role = yield* Effect.result(organizations.roleIn(input.organizationId, input.accountId!))
        if (input.purpose === "closure" && (Result.isFailure(role) || role.success !== "owner")) {
          return yield* new SsoActionForbidden({ message: "Only an owner can inspect the organization's closure." })
        }
      }
      let invitationTokenHash: string | null = null
      if (input.purpose === "invitation") {
        invitationTokenHash = yield* sha256Hex(input.invitationToken!)
        const invitation = yield* invitations.findByTokenHash(invitationTokenHash)
        const now = yield* DateTime.now
        if (
          Option.isNone(invitation) || invitation.value.organizationId !== input.organizationId ||
          invitation.value.acceptedAt !== null || invitation.value.revokedAt !== null ||
          !DateTime.isLessThan(now, invitation.value.expiresAt)
        ) {
          return yield* new SsoPreconditionFailed({ message: "The invitation is not a pending invitation of this organization." })
        }
      }
      yield* settings.requireEntitlement(input.organizationId)
      const connection = yield* readyConnection(input.organizationId)
      const metadata = yield* outbound.discover(connection.issuer)
      const state = yield* randomToken
      const nonce = yield* randomToken
      const codeVerifier = yield* randomToken
      const now = yield* DateTime.now
      const login: SsoLoginRecord = {
        stateHash: yield* sha256Hex(state),
        organizationId: input.organizationId,
        purpose: input.purpose,
        generation: connection.generation,
        codeVerifier,
        nonce,
        returnTo: returnTo.success,
        invitationTokenHash,
        accountId: input.accountId ?? null,
        createdAt: now,
        expiresAt: DateTime.addDuration(now, policy.loginTtl)
      }
      yield* repo.insertLogin(login)
      const url = new URL(metadata.authorizationEndpoint)
      url.searchParams.set("response_type", "code")
      url.searchParams.set("client_id", connection.clientId)
      url.searchParams.set("redirect_uri", policy.callbackUrl)
      url.searchParams.set("scope", "openid email profile")
      url.searchParams.set("state", state)
      url.searchParams.set("nonce", nonce)
      url.searchParams.set("code_challenge", yield* s256(codeVerifier))
      url.searchParams.set("code_challenge_method", "S256")
      return { url: url.href }
    })

    /** The verified claims of the provider's ID token, or why it is refused. */
    const verifyIdToken = (connection: SsoConnectionRecord, jwksUri: string, idToken: string, nonce: string) =>
      Effect.gen(function*() {
        const jwks = yield* outbound.jwks(jwksUri)
        const nowMs = yield* Clock.currentTimeMillis
        const verified = yield* Effect.tryPromise({
          try: () =>
            jwtVerify(idToken, createLocalJWKSet({ keys: jwks.keys as never }), {
              issuer: connection.issuer,
              audience: connection.clientId,
              algorithms: ID_TOKEN_ALGORITHMS,
              clockTolerance: CLOCK_TOLERANCE_SECONDS,
              currentDate: new Date(nowMs),
              requiredClaims: ["sub", "exp", "iat"]
            }),
          catch: (e) => new SsoSignInRejected({ reason: `The ID token was refused: ${e instanceof Error ? e.message : "invalid"}.` })
        })
        const claims = verified.payload
        if (claims.nonce !== nonce) return yield* reject("The ID token's nonce does not match the sign-in.")
        if (typeof claims.sub !== "string" || claims.sub.length === 0 || claims.sub.length > 255) {
          return yield* reject("The ID token has no usable subject.")
        }
        const email = typeof claims.email === "string" ? claims.email.trim() : ""
        if (email === "" || email.length > 254) return yield* reject("The provider did not assert an email address.")
        if (claims.email_verified === false) return yield* reject("The provider says the email address is not verified.")
        const domain = emailDomain(email)
        if (domain === undefined || !connection.domains.some((d) => d.domain === domain && d.state === "verified")) {
          return yield* reject(`The email's domain is not a verified domain of the organization.`)
        }
        const name = (k: string) => (typeof claims[k] === "string" ? (claims[k] as string).slice(0, 256) : null)
        return { subject: claims.sub, email, firstName: name("given_name"), lastName: name("family_name") }
      })

    /** The account of a verified identity: linked, by email, or created (JIT). */
    const accountFor = (
      connection: SsoConnectionRecord,
      identity: { readonly subject: string; readonly email: string; readonly firstName: string | null; readonly lastName: string | null },
      allowCreate: boolean
    ) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        const linked = yield* repo.findIdentity({ organizationId: connection.organizationId, issuer: connection.issuer, subject: identity.subject })
        if (Option.isSome(linked)) {
          const account = yield* accountsRepo.findById(linked.value.accountId)
          if (Option.isSome(account) && account.value.deletedAt === null) return { accountId: account.value.accountId, created: false }
        }
        const byEmail = yield* accountsRepo.findByEmail(identity.email)
        let accountId: AccountId
        let created = false
        if (Option.isSome(byEmail) && byEmail.value.deletedAt === null) {
          accountId = byEmail.value.accountId
        } else {
          if (!allowCreate) return yield* reject("No account exists for this identity, and just-in-time provisioning is off.")
          const account = yield* accounts.create({ email: identity.email, firstName: identity.firstName, lastName: identity.lastName }).pipe(
            Effect.catchTag("EmailTaken", () => reject("An account with this email exists but cannot be used."))
          )
          accountId = account.accountId
          created = true
        }
        yield* repo.insertIdentity({
          organizationId: connection.organizationId,
          issuer: connection.issuer,
          subject: identity.subject,
          accountId,
          createdAt: now
        })
        return { accountId, created }
      })

    /** The callback: the provider's answer → a Dashboard session and where to go. */
    const complete = fn("SsoSignIn.complete")(function*(input: {
      readonly state: string
      readonly code?: string | undefined
      readonly error?: string | undefined
    }) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(input.state)) return yield* reject("The sign-in state is missing or malformed.")
      const now = yield* DateTime.now
      const found = yield* repo.consumeLogin(yield* sha256Hex(input.state), now)
      if (Option.isNone(found)) return yield* reject("This sign-in is unknown, was already used, or has expired; start again.")
      const login = found.value
      if (input.error !== undefined) return yield* reject(`The identity provider refused the sign-in (${input.error.slice(0, 100)}).`)
      if (input.code === undefined || input.code.length === 0 || input.code.length > 4096) {
        return yield* reject("The identity provider sent no authorization code.")
      }
      const connection = yield* readyConnection(login.organizationId)
      if (connection.generation !== login.generation) return yield* reject("The SSO connection changed during the sign-in; start again.")
      const metadata = yield* outbound.discover(connection.issuer)
      const sealed = fromBase64url(connection.clientSecretSealed)
      const clientSecret = sealed === undefined
        ? undefined
        : yield* unseal(CLIENT_SECRET_PURPOSE, sealed).pipe(Effect.provideService(ServerSecret, secret))
      if (clientSecret === undefined) return yield* new SsoPreconditionFailed({ message: "The stored client secret cannot be read; set it again." })
      const { idToken } = yield* outbound.exchangeCode({
        tokenEndpoint: metadata.tokenEndpoint,
        code: input.code,
        codeVerifier: login.codeVerifier,
        redirectUri: policy.callbackUrl,
        clientId: connection.clientId,
        clientSecret: new TextDecoder().decode(clientSecret)
      })
      const identity = yield* verifyIdToken(connection, metadata.jwksUri, idToken, login.nonce)
      const { accountId, created } = yield* accountFor(connection, identity, connection.jitEnabled || login.purpose === "invitation")
      yield* applyPurpose(login, accountId, connection)
      const session = yield* sessions.create(accountId)
      yield* repo.markSession({ sessionId: session.session.sessionId, organizationId: login.organizationId, expiresAt: session.session.expiresAt })
      return {
        accountId,
        organizationId: login.organizationId,
        sessionToken: session.token,
        sessionExpiresAt: session.session.expiresAt,
        returnTo: login.returnTo,
        created
      } satisfies CompletedSignIn
    })

    const applyPurpose = (login: SsoLoginRecord, accountId: AccountId, connection: SsoConnectionRecord) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        const role = yield* organizationsRepo.roleOf(login.organizationId, accountId)
        switch (login.purpose) {
          case "invitation": {
            const invitation = yield* invitations.findByTokenHash(login.invitationTokenHash!)
            if (Option.isNone(invitation)) return yield* reject("The invitation no longer exists.")
            if (invitation.value.email.toLowerCase() !== (yield* emailOf(accountId)).toLowerCase()) {
              return yield* reject("The invitation is for another email address.")
            }
            if (Option.isSome(role)) return
            yield* invitations.accept({ invitationId: invitation.value.invitationId, accountId, now }).pipe(
              Effect.catch((e) => reject(`The invitation cannot be accepted (${e._tag}).`))
            )
            return
          }
          case "admission":
            if (login.accountId !== null && login.accountId !== accountId) {
              return yield* reject("The identity provider signed in another account than the one asking for admission.")
            }
            if (Option.isNone(role)) {
              yield* organizationsRepo.addMember({ organizationId: login.organizationId, accountId, role: "member", now }).pipe(
                Effect.catchTag("MemberAlreadyExists", () => Effect.void)
              )
            }
            return
          case "closure":
            if (login.accountId !== accountId || Option.getOrNull(role) !== "owner") {
              return yield* reject("Only the owner who asked can inspect the organization's closure.")
            }
            return
          case "sign_in":
            if (Option.isNone(role)) {
              if (!connection.jitEnabled) return yield* reject("This account is not a member of the organization.")
              yield* organizationsRepo.addMember({ organizationId: login.organizationId, accountId, role: "member", now }).pipe(
                Effect.catchTag("MemberAlreadyExists", () => Effect.void)
              )
            }
            return
        }
      })

    const emailOf = (accountId: AccountId) =>
      Effect.map(accountsRepo.findById(accountId), (a) => Option.match(a, { onNone: () => "", onSome: (r) => r.email }))

    /**
     * Enterprise login: an organization (or an invitation's, or an email domain's) SSO when it is
     * ready, else the ordinary sign-in page with `returnTo`.
     */
    const startEnterpriseLogin = fn("SsoSignIn.startEnterpriseLogin")(function*(input: {
      readonly organizationId?: OrganizationId
      readonly invitationToken?: string
      readonly email?: string
      readonly returnTo: string
    }) {
      const returnTo = resolveReturnTo(input.returnTo, policy)
      if (Result.isFailure(returnTo)) return yield* new InvalidReturnTo({ message: returnTo.failure })
      let organizationId = input.organizationId
      if (organizationId === undefined && input.invitationToken !== undefined) {
        const invitation = yield* invitations.findByTokenHash(yield* sha256Hex(input.invitationToken))
        organizationId = Option.getOrUndefined(Option.map(invitation, (i) => i.organizationId))
      }
      if (organizationId === undefined && input.email !== undefined) {
        const domain = emailDomain(input.email)
        const connection = domain === undefined ? Option.none() : yield* repo.findConnectionByVerifiedDomain(domain)
        organizationId = Option.getOrUndefined(Option.map(connection, (c) => c.organizationId))
      }
      const ordinary = () => {
        const url = new URL("/sign-in", policy.dashboardUrl)
        url.searchParams.set("returnTo", returnTo.success)
        return { url: url.href }
      }
      if (organizationId === undefined) return ordinary()
      const purpose: SsoPurpose = input.invitationToken !== undefined ? "invitation" : "sign_in"
      return yield* begin({
        organizationId,
        purpose,
        returnTo: input.returnTo,
        ...(input.invitationToken === undefined ? {} : { invitationToken: input.invitationToken })
      }).pipe(
        // No SSO there (not configured, not ready, not in the plan, provider down): ordinary sign-in.
        Effect.catchTags({
          SsoNotConfigured: () => Effect.succeed(ordinary()),
          SsoPreconditionFailed: () => Effect.succeed(ordinary()),
          SsoSubscriptionRequired: () => Effect.succeed(ordinary()),
          SsoUpstreamFailure: () => Effect.succeed(ordinary())
        })
      )
    })

    return { begin, complete, startEnterpriseLogin } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}

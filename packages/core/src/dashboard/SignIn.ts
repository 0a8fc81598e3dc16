/**
 * The sign-in component's checks (docs/api-notes/dashboard-api.md): sign-up with email and
 * password, and sign-in with email, password and — once the account has a verified TOTP factor — a
 * TOTP code.
 *
 * - Passwords go through the `PasswordHasher` port (scrypt in the server). An unknown email costs
 *   the same hash as a known one, and gets the same answer as a wrong password.
 * - Failed attempts (wrong password, wrong TOTP code) count per email in a window; after
 *   `SignInPolicy.maxFailures` the email is refused until the window ends, even with the right
 *   password, so neither passwords nor six-digit codes can be guessed online.
 * - A sign-in that needs a code and has none is not a failure: the password was right.
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Redacted } from "effect"
import { Accounts } from "../accounts/Accounts.js"
import { TotpFactors } from "../accounts/TotpFactors.js"
import { AccountsRepo, PasswordHasher } from "../accounts/Ports.js"
import { sha256Hex } from "../internal/Crypto.js"
import { InvalidSignIn, PasswordRejected, SignInLocked, TotpCodeInvalid, TotpCodeRequired } from "./DashboardErrors.js"
import { SignInThrottleRepo } from "./DashboardPorts.js"
import { Sessions } from "./Sessions.js"
import { fn } from "../internal/Traced.js"
import { Setting } from "../internal/Settings.js"

export interface SignInPolicyShape {
  /** Failed attempts per email allowed in one window. */
  readonly maxFailures: number
  readonly window: Duration.Duration
}

export class SignInPolicy extends Setting<SignInPolicy>()("core/SignInPolicy", {
  defaultValue: (): SignInPolicyShape => ({ maxFailures: 10, window: Duration.minutes(15) })
}) {}

export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 256

/** The password rule of sign-up: length only (NIST SP 800-63B), counted in code points. */
export const passwordProblem = (password: string): string | undefined => {
  const length = [...password].length
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`
  return undefined
}

/** The throttle subject of an email: its hash (the counters hold no addresses). */
const subjectOf = (email: string) => Effect.map(sha256Hex(`sign-in:${email.trim().toLowerCase()}`), (h) => `email:${h}`)

export class SignIn extends Context.Service<SignIn>()("core/SignIn", {
  make: Effect.gen(function*() {
    const accounts = yield* Accounts
    const accountsRepo = yield* AccountsRepo
    const hasher = yield* PasswordHasher
    const totp = yield* TotpFactors
    const throttle = yield* SignInThrottleRepo
    const sessions = yield* Sessions
    const policy = yield* SignInPolicy
    // A hash to check against when there is no account: the same work, so timing tells nothing.
    const dummyHash = yield* Effect.cached(hasher.hash(Redacted.make("no account has this password")))

    const locked = (subject: string) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        const current = yield* throttle.get(subject)
        if (Option.isNone(current) || current.value.failures < policy.maxFailures) return
        const endsAt = DateTime.addDuration(current.value.windowStartedAt, policy.window)
        if (!DateTime.isLessThan(now, endsAt)) return
        return yield* new SignInLocked({ retryAfterSeconds: Math.max(1, Math.ceil((DateTime.toEpochMillis(endsAt) - DateTime.toEpochMillis(now)) / 1000)) })
      })

    const fail = <E>(subject: string, error: E) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        yield* throttle.recordFailure({ subject, now, windowStart: DateTime.subtractDuration(now, policy.window) })
        return yield* Effect.fail(error)
      })

    /** Creates an account with a password and signs it in. */
    const signUp = fn("SignIn.signUp")(function*(input: {
      readonly email: string
      readonly password: Redacted.Redacted<string>
      readonly firstName?: string | null
      readonly lastName?: string | null
    }) {
      const problem = passwordProblem(Redacted.value(input.password))
      if (problem !== undefined) return yield* new PasswordRejected({ message: `password ${problem}` })
      const account = yield* accounts.create({
        email: input.email.trim(),
        password: input.password,
        firstName: input.firstName ?? null,
        lastName: input.lastName ?? null
      })
      const created = yield* sessions.create(account.accountId)
      return { account, ...created }
    })

    /** Checks the email, password and (when enrolled) TOTP code, and opens a new session. */
    const signIn = fn("SignIn.signIn")(function*(input: {
      readonly email: string
      readonly password: Redacted.Redacted<string>
      readonly code?: string | undefined
    }) {
      const subject = yield* subjectOf(input.email)
      yield* locked(subject)
      const found = yield* accountsRepo.findByEmail(input.email.trim())
      const account = Option.filter(found, (a) => a.deletedAt === null && a.passwordHash !== null)
      const hash = Option.isSome(account) ? account.value.passwordHash! : yield* dummyHash
      const matches = yield* hasher.verify(input.password, hash)
      if (Option.isNone(account) || !matches) return yield* fail(subject, new InvalidSignIn())
      const accountId = account.value.accountId
      if (yield* totp.hasVerifiedFactor(accountId)) {
        const code = input.code?.trim() ?? ""
        if (code === "") return yield* new TotpCodeRequired()
        yield* totp.verifyTotp(accountId, code).pipe(
          Effect.catchTag("TotpCodeRejected", (e) => fail(subject, new TotpCodeInvalid({ reason: e.reason })))
        )
      }
      yield* throttle.clear(subject)
      const created = yield* sessions.create(accountId)
      return { account: account.value, ...created }
    })

    return { signUp, signIn } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}

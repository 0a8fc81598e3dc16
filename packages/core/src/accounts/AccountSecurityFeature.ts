/**
 * The AccountSecurity feature in core (docs/api-notes/accounts-and-projects.md): the caller's
 * profile and deletion, phone verification and TOTP factors. `AccountSecurityCore` needs the ports
 * below, plus `SmsSender`, `ServerSecret`, `Secrets`, the organizations port and the identity
 * services (credential cache).
 */
import { Layer } from "effect"
import { AccountProfile } from "./AccountProfile.js"
import type { AccountProfileRepo, PhoneVerificationsRepo, TotpFactorsRepo } from "./AccountSecurityPorts.js"
import { PhoneVerifications } from "./PhoneVerification.js"
import { TotpFactors } from "./TotpFactors.js"

export * from "./AccountProfile.js"
export * from "./AccountSecurityErrors.js"
export * from "./AccountSecurityPorts.js"
export * from "./AccountSecuritySchema.js"
export * from "./PhoneVerification.js"
export * from "./Totp.js"
export * from "./TotpFactors.js"

export const AccountSecurityCore = Layer.mergeAll(AccountProfile.layer, PhoneVerifications.layer, TotpFactors.layer)

/** The store ports this feature adds (`SmsSender` is not one: the host or the server provides it). */
export type AccountSecurityPorts = AccountProfileRepo | PhoneVerificationsRepo | TotpFactorsRepo

/**
 * The core's services in one layer; it needs only the ports (repositories, hasher, secrets,
 * credential revocations). Services that share state (the credential cache) share one instance.
 */
import { Layer } from "effect"
import { Accounts } from "./identity/Accounts.js"
import { AccountServiceKeys } from "./identity/AccountServiceKeys.js"
import { Authenticator } from "./identity/Authenticator.js"
import { CredentialCache } from "./identity/CredentialCache.js"

export const SwitchboardCore = Layer.mergeAll(Accounts.Default, AccountServiceKeys.Default, Authenticator.Default).pipe(
  Layer.provideMerge(CredentialCache.Default)
)

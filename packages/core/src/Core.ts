/** The core's services in one layer; it needs only the ports (repositories, hasher, secrets). */
import { Layer } from "effect"
import { Accounts } from "./identity/Accounts.js"
import { AccountServiceKeys } from "./identity/AccountServiceKeys.js"
import { Authenticator } from "./identity/Authenticator.js"

export const SwitchboardCore = Layer.mergeAll(Accounts.Default, AccountServiceKeys.Default, Authenticator.Default)

/** The AccountSecurity feature's SQL repositories. */
import { Layer } from "effect"

export const AccountSecurityReposSql = Layer.empty

/** The AccessTokens feature's SQL repositories. */
import { Layer } from "effect"

export const AccessTokensReposSql = Layer.empty

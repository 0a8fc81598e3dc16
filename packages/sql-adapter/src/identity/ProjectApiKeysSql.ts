/** The ProjectApiKeys feature's SQL repositories. */
import { Layer } from "effect"

export const ProjectApiKeysReposSql = Layer.empty

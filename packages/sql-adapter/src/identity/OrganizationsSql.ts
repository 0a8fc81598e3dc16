/** The Organizations feature's SQL repositories. */
import { Layer } from "effect"

export const OrganizationsReposSql = Layer.empty

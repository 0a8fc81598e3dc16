/** The Projects feature's SQL repositories. */
import { Layer } from "effect"

export const ProjectsReposSql = Layer.empty

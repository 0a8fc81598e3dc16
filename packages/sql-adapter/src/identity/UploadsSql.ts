/** The Uploads feature's SQL repositories. */
import { Layer } from "effect"

export const UploadsReposSql = Layer.empty

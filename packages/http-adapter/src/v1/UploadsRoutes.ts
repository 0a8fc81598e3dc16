/** Raw routes of the Uploads feature (multipart upload targets, served files), beside the HttpApi. */
import { Layer } from "effect"

export const UploadsRawRoutes = Layer.empty

/** (method, path) of each raw route, for 405 answers. */
export const uploadsRawRouteTable: ReadonlyArray<readonly [string, string]> = []

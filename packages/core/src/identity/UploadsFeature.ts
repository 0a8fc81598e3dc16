/**
 * The Uploads feature in core: its services (`UploadsCore`, which needs only ports) and the ports it adds
 * to the store (`UploadsPorts`). Re-export the feature's modules from here.
 */
import { Layer } from "effect"

export const UploadsCore = Layer.empty
export type UploadsPorts = never

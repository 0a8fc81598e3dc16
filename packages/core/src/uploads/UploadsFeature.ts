/**
 * The Uploads feature in core: its services (`UploadsCore`, which needs only ports) and the ports it adds
 * to the store (`UploadsPorts`). Re-export the feature's modules from here.
 *
 * `UploadsCore` also needs two ports that are not the store's: `BlobStore` (files) and, optionally,
 * `UploadSettings` (defaults apply; the server sets the public base URL).
 */
import { Layer } from "effect"
import { AgentAvatars } from "../projects/AgentAvatars.js"
import type { AccountPictureRepo, UploadTicketsRepo } from "./UploadPorts.js"
import { Uploads } from "./Uploads.js"

export * from "./UploadErrors.js"
export * from "./UploadForm.js"
export * from "./UploadImage.js"
export * from "./UploadPorts.js"
export * from "./UploadSchema.js"
export * from "./Uploads.js"
export * from "../projects/AgentAvatars.js"

/** Account pictures and agent avatars (the latter also use the projects' and organizations' ports). */
export const UploadsCore = AgentAvatars.layer.pipe(Layer.provideMerge(Uploads.layer))
export type UploadsPorts = UploadTicketsRepo | AccountPictureRepo

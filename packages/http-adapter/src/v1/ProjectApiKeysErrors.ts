/** The ProjectApiKeys feature's rows of the error table: core error tag → problem (see Problems.ts). */
import type { ErrorTable } from "./Problems.js"

export const projectApiKeysErrors: ErrorTable = {}

import { BlobStoreMemory } from "@switchboard/testkit"
import { blobStoreContract } from "@switchboard/testkit/vitest"

blobStoreContract("memory", () => BlobStoreMemory)

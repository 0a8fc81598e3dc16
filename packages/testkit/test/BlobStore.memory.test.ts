import { BlobStoreMemory, blobStoreContract } from "@switchboard/testkit"

blobStoreContract("memory", () => BlobStoreMemory)

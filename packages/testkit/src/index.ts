/** @switchboard/testkit — in-memory layers for every core port, fixtures and the contract suites. */
import { CredentialRevocationsInProcess, SecretsLive } from "@switchboard/core"
import { Layer } from "effect"
import { PasswordHasherTest } from "./Adapters.js"
import { RepositoriesMemory } from "./MemoryStore.js"

export * from "./Adapters.js"
export * from "./MemoryStore.js"
export * from "./RepositoryContract.js"

/** Every port in memory, with real randomness: provide it under `SwitchboardCore` in tests and demos. */
export const TestkitLive = Layer.mergeAll(RepositoriesMemory, PasswordHasherTest, SecretsLive, CredentialRevocationsInProcess)

/**
 * @switchboard/testkit — in-memory layers for every core port and fixtures; needs no test runner.
 * The repository contract suites, which do, are the `@switchboard/testkit/vitest` entry.
 */
import { CredentialRevocationsInProcess } from "@switchboard/core/credentials"
import { SecretsLive } from "@switchboard/core/shared"
import { Layer } from "effect"
import { PasswordHasherTest, TestServerSecret } from "./Adapters.js"
import { RepositoriesMemory } from "./Features.js"

export * from "./Adapters.js"
export * from "./Features.js"
export * from "./Fixtures.js"

/** Every port in memory, with real randomness: provide it under `SwitchboardCore` in tests and demos. */
export const TestkitLive = Layer.mergeAll(
  RepositoriesMemory,
  PasswordHasherTest,
  SecretsLive,
  CredentialRevocationsInProcess,
  TestServerSecret
)

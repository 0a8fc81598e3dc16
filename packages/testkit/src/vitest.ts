/**
 * @switchboard/testkit/vitest — the contract suites, for a test file run by vitest with
 * `@effect/vitest`: every behaviour an implementation of core's storage ports must show. Run
 * `repositoryContract(name, () => layer)` over a host's own adapter to check it.
 */
export * from "./RepositoryContract.js"
export * from "./contracts/BlobStoreContract.js"
export * from "./contracts/MetricsContract.js"

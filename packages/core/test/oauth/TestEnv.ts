/** The layers of the oauth tests: the verifier and signing keys over the memory store, nothing else. */
import { AccessTokenVerifier, CredentialRevocationsInProcess } from "@switchboard/core/credentials"
import { SigningKeys } from "@switchboard/core/oauth"
import { RateLimiterInProcess, SecretsLive } from "@switchboard/core/shared"
import { IdentityReposMemory, MemoryStateLive, OAuthProviderMemory, SigningKeysRepoMemory, TestServerSecret } from "@switchboard/testkit"
import { Layer } from "effect"

export const StoreMemory = Layer.mergeAll(IdentityReposMemory, SigningKeysRepoMemory, OAuthProviderMemory, RateLimiterInProcess).pipe(
  Layer.provideMerge(MemoryStateLive)
)

/** A fresh store each time it is provided; `SigningKeys` is the verifier's own instance (one key cache). */
export const Env = Layer.mergeAll(AccessTokenVerifier.layer, SigningKeys.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(StoreMemory, SecretsLive, TestServerSecret, CredentialRevocationsInProcess))
)

export const T0 = Date.parse("2030-01-01T00:00:00.000Z")

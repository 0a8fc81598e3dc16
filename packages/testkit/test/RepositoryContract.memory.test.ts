import { CredentialRevocationsInProcess } from "@switchboard/core/credentials"
import { RepositoriesMemory } from "@switchboard/testkit"
import { repositoryContract } from "@switchboard/testkit/vitest"
import { Layer } from "effect"

repositoryContract("memory", () => Layer.merge(RepositoriesMemory, CredentialRevocationsInProcess))

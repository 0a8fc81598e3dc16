import { CredentialRevocationsInProcess } from "@switchboard/core/credentials"
import { RepositoriesMemory, repositoryContract } from "@switchboard/testkit"
import { Layer } from "effect"

repositoryContract("memory", () => Layer.merge(RepositoriesMemory, CredentialRevocationsInProcess))

import { RepositoriesMemory, repositoryContract } from "@switchboard/testkit"

repositoryContract("memory", () => RepositoriesMemory)

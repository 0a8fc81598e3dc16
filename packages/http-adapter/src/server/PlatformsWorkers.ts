/**
 * The provisioning operation worker of a server process (docs/provisioning.md): core
 * `ProvisioningWorker.run` until the process stops. Any number of processes may run it on one
 * PostgreSQL (claims use `FOR UPDATE SKIP LOCKED` and leases). `PROVISIONING_WORKER_ENABLED=false`
 * turns it off (tests drive `runDue` by hand then).
 */
import { ProvisioningSettings, ProvisioningWorker } from "@switchboard/core/platforms"
import { Duration, Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const PlatformsWorkers = (_config: ServerConfigShape) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const settings = yield* ProvisioningSettings
    if (!settings.enabled) return
    const worker = yield* ProvisioningWorker
    yield* Effect.forkScoped(worker.run(Duration.millis(settings.pollIntervalMs)))
  }))

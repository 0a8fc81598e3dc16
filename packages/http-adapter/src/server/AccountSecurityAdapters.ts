/**
 * The AccountSecurity feature's adapters in the standalone server: an SMS sender that writes each
 * message to the log at info level instead of sending it, so an operator without an SMS provider can
 * still verify a phone number (the code is in the server's output). A host plugs in its provider by
 * providing its own `SmsSender`.
 */
import { SmsSender } from "@switchboard/core/accounts"
import { Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const SmsSenderLog: Layer.Layer<SmsSender> = Layer.succeed(
  SmsSender,
  SmsSender.of({
    send: (phoneNumber, text) => Effect.logInfo("SMS (not sent: no SMS provider configured)").pipe(Effect.annotateLogs({ to: phoneNumber, text }))
  })
)

export const AccountSecurityServerAdapters = (_config: ServerConfigShape) => SmsSenderLog

/**
 * @switchboard/testkit/simulated — deterministic simulated providers for core's provisioning ports
 * (numbers, 10DLC campaigns, Telegram, email domains, WhatsApp, the iMessage pool). The standalone
 * server ships them, so this entry imports no test runner: only core and effect.
 */
export * from "./SimulatedImessagePool.js"
export * from "./SimulatedProviders.js"
export * from "./SimulatedWhatsapp.js"

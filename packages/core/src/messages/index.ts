export * as MessageMachine from "./MessageMachine.js"
export * from "./MessagesFeature.js"

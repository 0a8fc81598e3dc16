export * as MessageMachine from "./MessageMachine.js"

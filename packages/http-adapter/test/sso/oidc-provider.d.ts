// panva's oidc-provider ships no type declarations; the tests use its constructor and `callback()`.
declare module "oidc-provider" {
  export default class Provider {
    constructor(issuer: string, configuration: unknown)
    callback(): (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void
  }
}

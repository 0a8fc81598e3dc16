/**
 * Which URLs a webhook may be registered with (docs/api-notes/management-api.md: "a valid URL";
 * HTTPS, no credentials, no fragment, at most 2048 characters). `http://` and private or
 * loopback literal addresses are accepted only where the operator allows insecure targets (local
 * development, tests). Names are resolved, and their addresses checked, at delivery time.
 */
import { Result } from "effect"
import { isIpLiteral, isPublicAddress } from "./Addresses.js"

export const MAX_WEBHOOK_URL_LENGTH = 2048

/** The URL as sent, or why it is refused. */
export const checkWebhookUrl = (raw: string, allowInsecure: boolean): Result.Result<string, string> => {
  if (raw.length === 0 || raw.length > MAX_WEBHOOK_URL_LENGTH) {
    return Result.fail(`must be 1 to ${MAX_WEBHOOK_URL_LENGTH} characters`)
  }
  if (raw.trim() !== raw || /[\s]/.test(raw)) return Result.fail("must not contain whitespace")
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return Result.fail("must be an absolute URL")
  }
  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:")) {
    return Result.fail(allowInsecure ? "must be an https:// or http:// URL" : "must be an https:// URL")
  }
  if (url.username !== "" || url.password !== "") return Result.fail("must not carry credentials")
  if (raw.includes("#")) return Result.fail("must not have a fragment")
  const host = url.hostname
  if (host === "") return Result.fail("must name a host")
  if (!allowInsecure) {
    const literal = host.startsWith("[") ? host.slice(1, -1) : host
    if (isIpLiteral(literal) && !isPublicAddress(literal)) return Result.fail("must not target a private, loopback or reserved address")
    if (literal === "localhost" || literal.endsWith(".localhost")) return Result.fail("must not target localhost")
  }
  return Result.succeed(raw)
}

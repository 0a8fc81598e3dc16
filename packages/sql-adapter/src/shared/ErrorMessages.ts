/**
 * An error's message and those of its causes (and `reason`s), each once, joined with ": " — e.g.
 * `Failed to execute statement: relation "accounts" already exists`: the driver's own words say
 * what to fix. At most 6 levels deep; an error with no message at all is shown as `String(error)`.
 */
export const messagesOf = (error: unknown): string => {
  const messages: Array<string> = []
  let next: unknown = error
  for (let depth = 0; depth < 6 && typeof next === "object" && next !== null; depth++) {
    const { cause, message, reason } = next as { cause?: unknown; message?: unknown; reason?: unknown }
    if (typeof message === "string" && message !== "" && !messages.includes(message)) messages.push(message)
    next = cause ?? reason
  }
  return messages.length === 0 ? String(error) : messages.join(": ")
}

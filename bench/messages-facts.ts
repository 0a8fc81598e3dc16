/**
 * The message facts of `messages.ts`: a batch is 100 facts — 25 outbound messages dispatched,
 * accepted and delivered (75 facts) and 25 inbound messages received — with fresh message ids.
 */
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"

export const BATCH = 100
export const MESSAGES_PER_BATCH = 50

const newId = (kind: (typeof IdKinds)[keyof typeof IdKinds]) =>
  formatTypeId(kind, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10))))

const created = (platform: string, text: string) => ({
  platform,
  space: { id: `space-${text}`, type: "direct" },
  sentBy: { id: newId(IdKinds.user), handle: "+15550100" },
  addressedTo: { id: newId(IdKinds.user), handle: "+12015550100" },
  content: { type: "text", text: `Your code is ${text}` },
  metadata: { campaign: "bench" }
})

/** One batch of 100 facts in wire form. */
export const factBatch = (): Array<unknown> => {
  const base = Date.now()
  const ts = (ms: number) => new Date(base + ms).toISOString()
  const facts: Array<unknown> = []
  for (let i = 0; i < 25; i++) {
    const messageId = newId(IdKinds.message)
    facts.push(
      { id: `${messageId}:d`, messageId, type: "dispatched", timestamp: ts(0), data: created("sms", String(100000 + i)) },
      { id: `${messageId}:a`, messageId, type: "accepted", timestamp: ts(10), data: { acceptance: { providerMessageId: `SM${i}` } } },
      { id: `${messageId}:v`, messageId, type: "delivered", timestamp: ts(20), data: {} }
    )
  }
  for (let i = 0; i < 25; i++) {
    const messageId = newId(IdKinds.message)
    facts.push({ id: `${messageId}:r`, messageId, type: "received", timestamp: ts(5), data: created("imessage", String(i)) })
  }
  return facts
}

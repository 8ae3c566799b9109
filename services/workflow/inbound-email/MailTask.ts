import { type AddressObject, simpleParser } from "mailparser"
import { createHash } from "node:crypto"

// Runs on a thread of the worker pool (platform/workers): a message is up to
// INBOUND_EMAIL_MAX_BYTES of anybody's MIME, parsed here, never on the event loop.

const addresses = (field: AddressObject | ReadonlyArray<AddressObject> | undefined): Array<string> =>
  (field === undefined ? [] : Array.isArray(field) ? field : [field as AddressObject])
    .flatMap((o) => o.value)
    .flatMap((a) => a.address !== undefined && a.address !== "" ? [a.address.toLowerCase()] : [])

const idList = (value: string | ReadonlyArray<string> | undefined) => (value === undefined ? [] : typeof value === "string" ? [value] : [...value])

/** A message as stored: what the run input and the message endpoint are made of. */
const stored = (mail: Awaited<ReturnType<typeof simpleParser>>, raw: Buffer) => {
  const messageId = mail.messageId ?? `<sha256-${createHash("sha256").update(raw).digest("hex")}@inbound>`
  const headers: Record<string, Array<string>> = {}
  for (const { key, line } of mail.headerLines) (headers[key] ??= []).push(line.slice(line.indexOf(":") + 1).trim())
  return {
    messageId,
    subject: mail.subject ?? "",
    sender: addresses(mail.from)[0] ?? "",
    recipients: { to: addresses(mail.to), cc: addresses(mail.cc) },
    // The thread's first message names the conversation: the root of References, else what it replies to.
    conversationId: idList(mail.references)[0] ?? mail.inReplyTo ?? messageId,
    headers,
    text: mail.text ?? null,
    html: mail.html === false ? null : mail.html,
    attachments: mail.attachments.map((a, position) => ({
      position,
      filename: a.filename ?? `attachment-${position + 1}`,
      content_type: a.contentType,
      size_bytes: a.size,
      inline: a.contentDisposition === "inline" || a.related === true,
      checksum: a.checksum,
      content: a.content
    }))
  }
}

export type StoredMail = ReturnType<typeof stored>

/** The message parsed (mailparser) into what is stored of it. */
export const readMail = async ({ raw }: { readonly raw: Uint8Array }): Promise<StoredMail> => {
  const buffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
  return stored(await simpleParser(buffer), buffer)
}

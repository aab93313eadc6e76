/**
 * The local stack's mail, read from MailDev's REST API (MAIL_URL, started
 * by `make up`): the messages to an address, their attachments, and the QR
 * codes in their inline images decoded back to text (jsqr on pngjs).
 */
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { env } from './api';

export interface MailAttachment {
  filename: string;
  generatedFileName: string;
  contentType: string;
  contentDisposition?: string;
  contentId?: string;
}

export interface Mail {
  id: string;
  subject: string;
  text: string;
  html: string;
  to: { address: string; name: string }[];
  headers: Record<string, string>;
  attachments?: MailAttachment[];
}

const mailUrl = () => env('MAIL_URL');

/** Every message to `address`, in arrival order. */
export async function mailTo(address: string): Promise<Mail[]> {
  const response = await fetch(`${mailUrl()}/api/email?${new URLSearchParams({ 'to.address': address })}`);
  if (!response.ok) throw new Error(`MailDev answered ${response.status}`);
  return (await response.json()) as Mail[];
}

/** Waits until `address` has at least `count` messages (matching `subject`, when given); returns them. */
export async function waitForMail(address: string, options: { count?: number; subject?: RegExp; timeoutMs?: number } = {}): Promise<Mail[]> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const mail = (await mailTo(address)).filter((message) => !options.subject || options.subject.test(message.subject));
    if (mail.length >= (options.count ?? 1)) return mail;
    if (Date.now() > deadline) throw new Error(`${address} has ${mail.length} matching messages after ${options.timeoutMs ?? 30_000} ms, wanted ${options.count ?? 1}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function attachment(mail: Mail, file: MailAttachment): Promise<Buffer> {
  const response = await fetch(`${mailUrl()}/api/email/${mail.id}/attachment/${file.generatedFileName}`);
  if (!response.ok) throw new Error(`attachment ${file.filename}: MailDev answered ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** What a PNG's QR code says (undefined when none is found). */
export function decodeQr(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.byteLength), image.width, image.height)?.data;
}

/** The inline images' QR codes, by the content id the HTML names them with. */
export async function inlineQrCodes(mail: Mail): Promise<Map<string, string | undefined>> {
  const codes = new Map<string, string | undefined>();
  for (const file of mail.attachments ?? []) {
    if (file.contentType === 'image/png' && file.contentId) codes.set(file.contentId, decodeQr(await attachment(mail, file)));
  }
  return codes;
}

/** A unique address per test run, so a suite finds only its own mail. */
export const uniqueAddress = (name: string) => `${name}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;

/**
 * Sending email to customers (comp guests their tickets, waiting-list
 * customers their offers). Mail delivery is the one truly external system
 * here, so it sits behind this interface: the SMTP adapter (nodemailer,
 * SMTP_URL) and the log adapter used locally by default. What a message
 * says is decided by the service that sends it, the same for every adapter.
 */
import { z } from 'zod';

export interface MailMessage {
  to: string;
  /** The recipient's name, if known. */
  toName: string | null;
  subject: string;
  text: string;
  /** An HTML alternative to `text`; images in it are attachments named by `cid:`, never remote. */
  html?: string;
  attachments?: MailAttachment[];
  /** Stable per message (`<ticket-<id>@…>`), so a repeat of an at-least-once send can be recognised. */
  messageId: string;
}

export interface MailAttachment {
  filename: string;
  content: Buffer | string;
  contentType: string;
  /** Set for an inline image: the HTML shows it as `<img src="cid:…">`. */
  cid?: string;
}

/**
 * A send the mail system refused for good (an address it will not take, a
 * 5xx reply): trying again would fail the same way, so it is recorded as
 * failed at once with the reason.
 */
export class PermanentMailFailure extends Error {}

export interface Mailer {
  /** Resolves once the mail system accepted the message; throws to have it retried later. */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/** The settings every service that sends mail reads (its choice of adapter goes under its own name). */
export const mailSettings = {
  /** The SMTP server for the smtp adapter: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`. */
  SMTP_URL: z.string().url().optional(),
  /** The sender of every email; its domain also names the Message-IDs. */
  MAIL_FROM: z.string().min(3).default('Tickets <tickets@example.com>'),
};

/** The domain of MAIL_FROM's address (`Tickets <tickets@example.com>` → `example.com`), for Message-IDs. */
export const mailDomain = (from: string): string => /@([^\s>]+)/.exec(from)?.[1] ?? 'localhost';

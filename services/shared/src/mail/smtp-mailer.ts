/**
 * Email through an SMTP server with nodemailer (the `smtp` mailer).
 * SMTP_URL names the server and its credentials (`smtp://user:pass@host:587`
 * upgrades with STARTTLS when offered, `smtps://…:465` is TLS from the
 * start); MAIL_FROM is the sender. One pooled connection set per process.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { PermanentMailFailure, type MailMessage, type Mailer } from './mailer';

/**
 * A 5xx reply (a mailbox that does not exist, an address the server will
 * not relay to) or an address nodemailer cannot send to at all; a 4xx, a
 * timeout or a lost connection is worth another try.
 */
function refusedForGood(error: unknown): boolean {
  const { responseCode, code } = error as { responseCode?: number; code?: string };
  // EENVELOPE with a reply code is a refused recipient, whose code says whether for good; without one, no address at all.
  return typeof responseCode === 'number' ? responseCode >= 500 : code === 'EENVELOPE';
}

export interface SmtpOptions {
  url: string;
  from: string;
  /** Give up on a server that does not answer within this long (ms). */
  timeoutMs?: number;
}

export class SmtpMailer implements Mailer {
  private readonly transport: Transporter<SMTPTransport.SentMessageInfo>;

  constructor(private readonly options: SmtpOptions) {
    const timeout = options.timeoutMs ?? 15_000;
    this.transport = nodemailer.createTransport({ url: options.url, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout });
  }

  async send(email: MailMessage): Promise<void> {
    try {
      await this.transport.sendMail({
        from: this.options.from,
        to: email.toName ? { name: email.toName, address: email.to } : email.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
        attachments: email.attachments?.map((attachment) => ({ ...attachment, contentDisposition: attachment.cid ? 'inline' : 'attachment' })),
        messageId: email.messageId,
      });
    } catch (error) {
      throw refusedForGood(error) ? new PermanentMailFailure(`the mail server refused the message: ${(error as Error).message}`) : error;
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

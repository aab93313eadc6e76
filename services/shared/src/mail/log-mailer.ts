/**
 * The local stand-in for a mail system (the `log` mailer, the default): it
 * accepts every message and logs that it did, with its Message-ID and no
 * address, name or content (customer data stays out of logs).
 */
import type { Logger } from '../logger';
import type { MailMessage, Mailer } from './mailer';

export class LogMailer implements Mailer {
  constructor(private readonly logger: Logger) {}

  async send(message: MailMessage): Promise<void> {
    this.logger.info({ messageId: message.messageId }, 'email accepted by the log mailer (not sent)');
  }

  async close(): Promise<void> {}
}

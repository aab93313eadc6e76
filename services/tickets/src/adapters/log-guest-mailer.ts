/**
 * The local stand-in for a mail system (GUEST_MAILER=log, the default): it
 * accepts every message and logs that it did, with the ticket's Message-ID
 * and no address, name or barcode (customer data stays out of logs).
 */
import type { Logger } from '@partner-api/shared';
import type { GuestEmail, GuestMailer } from '../domain/guest-mailer';

export class LogGuestMailer implements GuestMailer {
  constructor(private readonly logger: Logger) {}

  async send(email: GuestEmail): Promise<void> {
    this.logger.info({ messageId: email.messageId }, 'guest email accepted by the log mailer (not sent)');
  }

  async close(): Promise<void> {}
}

/** The mailer a service's settings choose, from the adapters beside the interface. */
import type { Logger } from '../logger';
import { LogMailer } from './log-mailer';
import type { Mailer } from './mailer';
import { SmtpMailer } from './smtp-mailer';

/** `log` (accepts and logs, sends nothing; the local default) or `smtp` (SMTP_URL). */
export function createMailer(kind: 'log' | 'smtp', settings: { SMTP_URL?: string | undefined; MAIL_FROM: string }, logger: Logger): Mailer {
  if (kind === 'log') return new LogMailer(logger);
  if (!settings.SMTP_URL) throw new Error('SMTP_URL is required for the smtp mailer');
  return new SmtpMailer({ url: settings.SMTP_URL, from: settings.MAIL_FROM });
}

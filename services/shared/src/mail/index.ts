export * from './mailer';
export { LogMailer } from './log-mailer';
export { SmtpMailer, type SmtpOptions } from './smtp-mailer';

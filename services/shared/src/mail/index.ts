export * from './mailer';
export { createMailer } from './create-mailer';
export { LogMailer } from './log-mailer';
export { SmtpMailer, type SmtpOptions } from './smtp-mailer';

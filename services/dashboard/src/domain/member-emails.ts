/** What the dashboard's emails to members say: invitations and one-time sign-in links. */
import { randomUUID } from 'node:crypto';
import type { MailMessage } from '@partner-api/shared';
import { ROLE_LABELS, type Role } from './roles';

export interface MailContext {
  baseUrl: string;
  domain: string;
}

export function invitationEmail(ctx: MailContext, to: { email: string; name: string; role: Role }, organisation: string, token: string, validHours: number): MailMessage {
  const link = `${ctx.baseUrl}/invitations/${token}`;
  return {
    to: to.email,
    toName: to.name,
    subject: `You're invited to ${organisation}'s ticketing dashboard`,
    text: [
      `Hello ${to.name},`,
      '',
      `You have been invited to ${organisation}'s ticketing dashboard as ${ROLE_LABELS[to.role]}.`,
      `Choose your password here (the link works once, for ${validHours} hours):`,
      '',
      link,
      '',
      'If you did not expect this, ignore this email.',
    ].join('\n'),
    messageId: `<invitation-${randomUUID()}@${ctx.domain}>`,
  };
}

export function signInLinkEmail(ctx: MailContext, to: { email: string; name: string }, token: string, validMinutes: number): MailMessage {
  return {
    to: to.email,
    toName: to.name,
    subject: 'Your sign-in link',
    text: [
      `Hello ${to.name},`,
      '',
      `Sign in to the ticketing dashboard with this link. It works once, for ${validMinutes} minutes:`,
      '',
      `${ctx.baseUrl}/sign-in/link/${token}`,
      '',
      'If you did not ask for it, ignore this email: nobody can sign in without the link.',
    ].join('\n'),
    messageId: `<sign-in-${randomUUID()}@${ctx.domain}>`,
  };
}

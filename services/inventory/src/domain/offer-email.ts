/**
 * What a waiting-list offer's email says: which tickets, until when, and
 * the link that opens the offer's checkout session (D257). Sent through the
 * shared Mailer, like comp guests' tickets.
 */
import type { MailMessage } from '@partner-api/shared';

export interface OfferForEmail {
  holdId: string;
  organisationId: string;
  email: string;
  quantity: number;
  ticketTypeName: string;
  eventTitle: string;
  eventStartsAt: Date;
  expiresAt: Date;
}

const utc = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The link in the email: the hosted checkout's waiting-list address, which opens the session and sends the customer to it. */
export const offerLink = (checkoutBaseUrl: string, offer: Pick<OfferForEmail, 'organisationId' | 'holdId'>) =>
  `${checkoutBaseUrl.replace(/\/+$/, '')}/waitlist/${offer.organisationId}/offers/${offer.holdId}`;

export function composeOfferEmail(offer: OfferForEmail, checkoutBaseUrl: string, messageIdDomain: string): MailMessage {
  const tickets = `${offer.quantity} ${offer.ticketTypeName} ticket${offer.quantity === 1 ? '' : 's'}`;
  return {
    to: offer.email,
    toName: null,
    subject: `Tickets to ${offer.eventTitle} are available for you`,
    text: [
      'Hi there,',
      '',
      `You joined the waiting list for ${offer.eventTitle} (starts ${utc(offer.eventStartsAt)}). ${tickets} ${offer.quantity === 1 ? 'is' : 'are'} now held for you.`,
      '',
      `Buy them here before ${utc(offer.expiresAt)}:`,
      offerLink(checkoutBaseUrl, offer),
      '',
      'After that time the tickets go to the next person on the list.',
    ].join('\n'),
    messageId: `<waitlist-offer-${offer.holdId}@${messageIdDomain}>`,
  };
}

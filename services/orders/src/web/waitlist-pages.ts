/**
 * The waiting-list join page's HTML, in the hosted checkout's layout: one
 * labelled form (ticket type, quantity, email), errors announced and tied
 * to their field, every value escaped.
 */
import type { MessageShape } from '@bufbuild/protobuf';
import type { gen } from '@partner-api/shared';
import { e, layout, localStart } from './pages';

type WaitlistForm = MessageShape<typeof gen.inventory.WaitlistFormSchema>;
type Entry = MessageShape<typeof gen.inventory.WaitlistEntrySchema>;

export interface JoinState {
  ticketTypeId?: string;
  quantity?: string;
  email?: string;
  error?: string;
  /** The field the error is about: ticket_type_id, quantity or email. */
  errorField?: string;
}

function heading(form: WaitlistForm): string {
  const event = form.event!;
  const when = `<time datetime="${e(event.startsAt)}">${e(localStart(event.startsAt, event.timezone))}</time>`;
  return `<h1>${e(event.title)}</h1><p class="when">${when}${event.venue ? ` · ${e(event.venue.name)}` : ''}</p>`;
}

export function joinPage(form: WaitlistForm, state: JoinState = {}): string {
  const invalid = (field: string) => (state.errorField === field ? ' aria-invalid="true" aria-describedby="join-error"' : '');
  const error = state.error ? `<p class="error" role="alert" id="join-error" data-testid="error">${e(state.error)}</p>` : '';
  const types = form.ticketTypes
    .map((type) => {
      const selected = state.ticketTypeId === type.id.toString() ? ' selected' : '';
      const label = `${type.name} (${type.status === 'sold_out' ? 'sold out' : 'on sale'}, up to ${type.maxPerOrder} per order)`;
      return `<option value="${type.id}"${selected}>${e(label)}</option>`;
    })
    .join('');
  const maximum = Math.max(1, ...form.ticketTypes.map((type) => type.maxPerOrder));
  return layout(
    `Waiting list · ${form.event!.title}`,
    `${heading(form)}<p>Join the waiting list and we will email you a link to buy when tickets come back. Offers go out in the order people joined, and each lasts a limited time.</p>
${error}<form method="post" action="/waitlist/${form.organisationId}/${form.event!.id}">
<label>Ticket type<select name="ticket_type_id" required${invalid('ticket_type_id')}>${types}</select></label>
<label>How many tickets<input type="number" name="quantity" min="1" max="${maximum}" step="1" required value="${e(state.quantity ?? '1')}"${invalid('quantity')}></label>
<label>Email<input type="email" name="email" autocomplete="email" maxlength="254" required value="${e(state.email)}"${invalid('email')}></label>
<button type="submit">Join the waiting list</button>
</form>`,
  );
}

export function joinedPage(form: WaitlistForm, entry: Entry): string {
  const status =
    entry.state === 'offered'
      ? 'Tickets are already offered to you: check your email for the link.'
      : `You are on the waiting list for ${entry.quantity} ticket${entry.quantity === 1 ? '' : 's'}. We will email ${e(entry.email)} when tickets come back.`;
  return layout(`On the waiting list · ${form.event!.title}`, `${heading(form)}<p class="ok" role="status" data-testid="joined">${status}</p>`);
}

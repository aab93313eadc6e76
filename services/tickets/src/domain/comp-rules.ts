/**
 * The pure rules of a comp batch: who the guests are (D57: how a name is
 * split), which of them get a ticket when the pool runs short (D56), and
 * what a guest's email says. The gateway validates the body first; the
 * same limits hold here for any other caller.
 */
import { ApiError, splitName } from '@partner-api/shared';

export interface CompGuestInput {
  email: string;
  name?: string | undefined;
}

export interface CompGuest {
  email: string;
  firstName: string | null;
  lastName: string | null;
}

export const MAX_COMP_GUESTS = 50;
export const MAX_NAME_LENGTH = 200;
export const MAX_NOTE_LENGTH = 500;
/** The shape the gateway's validation accepts (zod's email check); here only a sanity net. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Checks the batch's guests and names them; duplicates are kept, one ticket each (D58). */
export function planGuests(attendees: CompGuestInput[]): CompGuest[] {
  if (attendees.length < 1 || attendees.length > MAX_COMP_GUESTS) {
    throw new ApiError('parameter_invalid', `attendees must hold 1 to ${MAX_COMP_GUESTS} guests.`, 'attendees');
  }
  return attendees.map((guest, index) => {
    const email = guest.email.trim();
    if (!EMAIL.test(email) || email.length > 254) {
      throw new ApiError('parameter_invalid', `attendees[${index}].email must be an email address.`, `attendees[${index}].email`);
    }
    if ((guest.name ?? '').length > MAX_NAME_LENGTH) {
      throw new ApiError('parameter_invalid', `attendees[${index}].name is at most ${MAX_NAME_LENGTH} characters.`, `attendees[${index}].name`);
    }
    return { email, ...splitName(guest.name) };
  });
}

export function checkNote(note: string | undefined): string | null {
  if (note === undefined || note === '') return null;
  if (note.length > MAX_NOTE_LENGTH) throw new ApiError('parameter_invalid', `note is at most ${MAX_NOTE_LENGTH} characters.`, 'note');
  return note;
}

export interface CompFailure {
  email: string;
  reason: 'exceeds_stock';
}

/** The first `granted` guests in request order get tickets; the rest fail with `exceeds_stock` (D56). */
export function divideGuests(guests: CompGuest[], granted: number): { issued: CompGuest[]; failed: CompFailure[] } {
  return {
    issued: guests.slice(0, granted),
    failed: guests.slice(granted).map((guest) => ({ email: guest.email, reason: 'exceeds_stock' })),
  };
}

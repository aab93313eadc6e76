/** Passwords: argon2id with the library's defaults (64 MiB, 3 passes), and the rules a new one must meet. */
import argon2 from 'argon2';
import { DashboardError } from './dashboard-error';

export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 256;

export function checkNewPassword(password: string, confirmation: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw new DashboardError(400, `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`, 'password');
  if (password.length > MAX_PASSWORD_LENGTH) throw new DashboardError(400, `A password has at most ${MAX_PASSWORD_LENGTH} characters.`, 'password');
  if (password !== confirmation) throw new DashboardError(400, 'The two passwords differ.', 'password_confirmation');
}

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, { type: argon2.argon2id });

/** A hash of nothing anyone knows, checked when no member has the address, so both answers take as long. */
let decoy: Promise<string> | undefined;

export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  if (!hash) {
    decoy ??= hashPassword(`decoy-${Math.random()}`);
    await argon2.verify(await decoy, password);
    return false;
  }
  return argon2.verify(hash, password);
}

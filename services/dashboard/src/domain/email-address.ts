/** Members are found by email, compared in lower case without surrounding spaces. */
import { z } from 'zod';
import { DashboardError } from './dashboard-error';

const address = z.email().max(254);

export function normaliseEmail(value: unknown, field = 'email'): string {
  const email = String(value ?? '').trim().toLowerCase();
  if (!address.safeParse(email).success) throw new DashboardError(400, 'Enter an email address such as name@example.com.', field);
  return email;
}

/** Which of an endpoint's secrets sign a delivery. */

export interface SigningKeys {
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** The current secret, and the rotated-out one while its 24-hour overlap lasts. */
export function signingSecrets(keys: SigningKeys, now: Date): string[] {
  const overlap = keys.previous_secret !== null && keys.previous_secret_expires_at !== null && keys.previous_secret_expires_at > now;
  return overlap ? [keys.secret, keys.previous_secret!] : [keys.secret];
}

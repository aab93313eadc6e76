/**
 * A read made while Prometheus scrapes must neither fail the scrape (one
 * unreachable server would hide every other metric) nor outlast it: it
 * resolves to undefined on error or after `timeoutMs`.
 */
export async function scrapeRead<T>(read: () => Promise<T>, timeoutMs = 2_000): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([read().catch(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

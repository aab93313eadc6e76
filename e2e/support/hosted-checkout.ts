/** The hosted checkout as a browser without scripts uses it: GET the page, POST the form. */

export const GOOD_CARD = { card_name: 'Ann Lee', card_number: '4242 4242 4242 4242', card_expiry: '12/34', card_cvc: '123' };
export const DECLINED_CARD = { ...GOOD_CARD, card_number: '4000 0000 0000 0002' };

export interface Page {
  status: number;
  html: string;
  location: string | null;
  headers: Headers;
}

export async function openCheckout(url: string): Promise<Page> {
  const response = await fetch(url, { redirect: 'manual' });
  return { status: response.status, html: await response.text(), location: response.headers.get('location'), headers: response.headers };
}

/** Submits the payment form of the checkout at `url` (its checkout_url, or another orders process's copy). */
export async function payCheckout(url: string, fields: Record<string, string>): Promise<Page> {
  const response = await fetch(`${url}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: response.status, html: await response.text(), location: response.headers.get('location'), headers: response.headers };
}

/** The text of the element with this data-testid, tags stripped. */
export function testId(html: string, id: string): string | undefined {
  const match = new RegExp(`<(\\w+)[^>]*data-testid="${id}"[^>]*>(.*?)</\\1>`, 's').exec(html);
  return match?.[2]?.replace(/<[^>]+>/g, '').trim();
}

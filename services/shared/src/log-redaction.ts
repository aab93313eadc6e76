/**
 * What logs must not keep (D383): an API key or a webhook signing secret
 * wherever it appears in a line (a client that put its key in a URL, an
 * error quoting a header), and the values of query parameters a service
 * does not know (where such secrets travel: `?api_key=`, `?token=`).
 */
export const REDACTED = '[redacted]';

/** An API key (`svc_live_…`, `svc_test_…`) or a signing secret (`whsec_…`): the prefix stays, so a reader sees what was there. */
const SECRET_SHAPE = /(svc_(?:live|test)_|whsec_)[0-9A-Za-z]+/g;

/** `text` with every key- or secret-shaped run masked. */
export function maskSecrets(text: string): string {
  // Most lines name neither: two substring scans instead of a regular expression pass.
  if (!text.includes('svc_') && !text.includes('whsec_')) return text;
  return text.replace(SECRET_SHAPE, `$1${REDACTED}`);
}

const decodedName = (name: string): string => {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
};

/**
 * A request URL as a log line may keep it: the path and every query
 * parameter's name, with the value only of the parameters in `known` (the
 * API's own, such as `limit` or `cursor`); any other value is `[redacted]`.
 */
export function loggableUrl(url: string, known: ReadonlySet<string>): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return pair;
      const name = pair.slice(0, equals);
      return known.has(decodedName(name)) ? pair : `${name}=${REDACTED}`;
    })
    .join('&');
  return `${url.slice(0, start)}?${query}`;
}

/**
 * A person's name as first and last name, the way the platform splits a
 * single `name` field everywhere (comp guests, a transfer's new attendee;
 * D57).
 */

export interface SplitName {
  firstName: string | null;
  lastName: string | null;
}

/** Lower-case words that start a family name: "Ludwig van Beethoven" → "Ludwig" / "van Beethoven". */
const PARTICLES = new Set(['van', 'von', 'der', 'den', 'de', 'del', 'della', 'di', 'da', 'dos', 'das', 'du', 'la', 'le', 'ter', 'ten', 'bin', 'binti', 'al', 'el', 'st.']);

/**
 * A guest's `name` as attendee first and last name (D57): white space is
 * collapsed; "Last, First Middle" (one comma) is taken as written; otherwise
 * the last word is the last name, together with lower-case particles just
 * before it (van, von, de, di, da, bin, al, …), and everything before is the
 * first name. One word is a first name only; no name, or only white space,
 * leaves both null.
 */
export function splitName(name: string | null | undefined): SplitName {
  const clean = (name ?? '').replace(/\s+/g, ' ').trim();
  if (!clean) return { firstName: null, lastName: null };
  const comma = clean.split(',');
  if (comma.length === 2) {
    const last = comma[0]!.trim();
    const first = comma[1]!.trim();
    if (last && first) return { firstName: first, lastName: last };
  }
  const words = clean.split(' ');
  if (words.length === 1) return { firstName: words[0]!, lastName: null };
  let start = words.length - 1;
  while (start > 1 && PARTICLES.has(words[start - 1]!)) start -= 1;
  return { firstName: words.slice(0, start).join(' '), lastName: words.slice(start).join(' ') };
}

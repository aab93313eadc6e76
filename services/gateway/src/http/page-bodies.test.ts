import { PageBodies } from './page-bodies';

type Answer = { jsonTag: string; jsonUnchanged: boolean; dataJson: Uint8Array };
const bytes = (text: string) => new Uint8Array(Buffer.from(text));
const text = (json: Uint8Array) => Buffer.from(json).toString('utf8');

/** A service that tags its one page by content and answers "unchanged" to the matching tag. */
function service(page: { json: string }) {
  const asked: string[] = [];
  const fetch = async (knownTag: string): Promise<Answer> => {
    asked.push(knownTag);
    const tag = `tag:${page.json}`;
    return knownTag === tag ? { jsonTag: tag, jsonUnchanged: true, dataJson: new Uint8Array() } : { jsonTag: tag, jsonUnchanged: false, dataJson: bytes(page.json) };
  };
  return { fetch, asked };
}

/** The tag the bodies send for `page` (empty: nothing kept), asked without keeping anything. */
async function keptTag(bodies: PageBodies, page: string): Promise<string> {
  let known = '';
  await bodies
    .fetch(page, async (tag) => {
      known = tag;
      throw new Error('probe');
    })
    .catch(() => undefined);
  return known;
}

describe('PageBodies', () => {
  it('asks for a kept page by its tag and answers the kept bytes while the service says unchanged', async () => {
    const bodies = new PageBodies();
    const page = { json: '[1,2]' };
    const { fetch, asked } = service(page);
    expect(text((await bodies.fetch('p', fetch)).dataJson)).toBe('[1,2]');
    expect(text((await bodies.fetch('p', fetch)).dataJson)).toBe('[1,2]');
    page.json = '[1,3]';
    expect(text((await bodies.fetch('p', fetch)).dataJson)).toBe('[1,3]');
    expect(text((await bodies.fetch('p', fetch)).dataJson)).toBe('[1,3]');
    expect(asked).toEqual(['', 'tag:[1,2]', 'tag:[1,2]', 'tag:[1,3]']);
  });

  it('keeps its own copy of the bytes (a decoded answer is a view into a larger buffer that gets reused)', async () => {
    const bodies = new PageBodies();
    const shared = bytes('xx[7]yy');
    await bodies.fetch('p', async () => ({ jsonTag: 't', jsonUnchanged: false, dataJson: shared.subarray(2, 5) }));
    shared.fill(0);
    const kept = (await bodies.fetch('p', async () => ({ jsonTag: 't', jsonUnchanged: true, dataJson: new Uint8Array() }))).dataJson;
    expect(text(kept)).toBe('[7]');
    expect(kept.buffer.byteLength).toBe(3);
  });

  it('drops the least recently used pages beyond its size', async () => {
    const bodies = new PageBodies(3 * (1_000 + 64 + 1));
    for (const key of ['a', 'b', 'c']) await bodies.fetch(key, async () => ({ jsonTag: key, jsonUnchanged: false, dataJson: new Uint8Array(1_000) }));
    expect(await keptTag(bodies, 'a')).toBe('a');
    await bodies.fetch('d', async () => ({ jsonTag: 'd', jsonUnchanged: false, dataJson: new Uint8Array(1_000) }));
    const tags = [];
    for (const key of ['a', 'b', 'c', 'd']) tags.push(await keptTag(bodies, key));
    expect(tags).toEqual(['a', '', 'c', 'd']);
  });

  it('keeps nothing for a service that does not tag, and refuses an "unchanged" it cannot answer', async () => {
    const bodies = new PageBodies();
    await bodies.fetch('p', async () => ({ jsonTag: '', jsonUnchanged: false, dataJson: bytes('[]') }));
    expect(await keptTag(bodies, 'p')).toBe('');
    await expect(bodies.fetch('q', async () => ({ jsonTag: 't', jsonUnchanged: true, dataJson: new Uint8Array() }))).rejects.toThrow('does not keep');
  });
});

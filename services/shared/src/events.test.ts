import { buildEvent, randomBase62 } from './events';
import { API_VERSION } from './version';

describe('domain events', () => {
  it('are built in the webhook body shape', () => {
    const event = buildEvent('ticket.issued', { organisationId: 7, livemode: true }, { object: 'ticket', id: 1 }, {}, new Date('2026-10-18T00:00:10Z'));
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Za-z]{24}$/),
      object: 'event',
      type: 'ticket.issued',
      api_version: API_VERSION,
      created: 1792281610,
      livemode: true,
      organisation_id: 7,
      data: { object: { object: 'ticket', id: 1 } },
    });
  });

  it('carry extra data keys beside the object', () => {
    const event = buildEvent('event.updated', { organisationId: 1, livemode: true }, { object: 'event' }, { changed_fields: ['title'] });
    expect(event.data.changed_fields).toEqual(['title']);
  });

  it('draw ids from the full base62 alphabet', () => {
    const sample = randomBase62(4000);
    expect(sample).toMatch(/^[0-9A-Za-z]{4000}$/);
    expect(new Set(sample).size).toBe(62);
  });
});

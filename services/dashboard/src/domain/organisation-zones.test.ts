import { OrganisationZones, zonedTime } from './organisation-zones';

describe('zonedTime', () => {
  it('is the time on the zone’s clock, to the minute, with the zone named', () => {
    expect(zonedTime('2026-11-28T02:59:17.297Z', 'Australia/Brisbane')).toBe('28 Nov 2026, 12:59 pm AEST');
    expect(zonedTime(new Date('2026-11-28T02:59:17Z'), 'UTC')).toBe('28 Nov 2026, 2:59 am UTC');
    expect(zonedTime('2026-11-28T02:59:17Z', 'Not/A_Zone')).toBe('28 Nov 2026, 2:59 am UTC');
    expect(zonedTime(null, 'UTC')).toBe('');
    expect(zonedTime('yesterday', 'UTC')).toBe('');
  });
});

describe('OrganisationZones', () => {
  const inventory = (zones: Record<string, string | undefined>) => {
    const calls: string[] = [];
    return {
      calls,
      listEvents: async (request: { time: string }) => {
        calls.push(request.time);
        const zone = zones[request.time];
        return { data: zone ? [{ timezone: zone }] : [] };
      },
    };
  };

  it('is the next event’s zone, else the earliest event’s, else UTC, kept a while', async () => {
    const upcoming = inventory({ upcoming: 'Australia/Perth', all: 'Australia/Sydney' });
    const zones = new OrganisationZones(upcoming);
    await expect(zones.zoneOf(1)).resolves.toBe('Australia/Perth');
    await expect(zones.zoneOf(1)).resolves.toBe('Australia/Perth');
    expect(upcoming.calls).toEqual(['upcoming']);
    await expect(new OrganisationZones(inventory({ all: 'Australia/Sydney' })).zoneOf(1)).resolves.toBe('Australia/Sydney');
    await expect(new OrganisationZones(inventory({})).zoneOf(1)).resolves.toBe('UTC');
  });

  it('shows UTC rather than failing when inventory cannot answer, asks with a short deadline, and asks again later', async () => {
    const deadlines: Array<number | undefined> = [];
    let down = true;
    const zones = new OrganisationZones({
      listEvents: async (_request, _ctx, options) => {
        deadlines.push(options?.deadlineMs);
        if (down) throw new Error('inventory unreachable');
        return { data: [{ timezone: 'Australia/Brisbane' }] };
      },
    });
    await expect(zones.zoneOf(7)).resolves.toBe('UTC');
    expect(deadlines).toEqual([500]);
    down = false;
    // Still UTC for a while: a page load does not wait on an inventory that just failed.
    await expect(zones.zoneOf(7)).resolves.toBe('UTC');
    expect(deadlines).toHaveLength(1);
  });
});

import { create } from '@bufbuild/protobuf';
import { toApiJson } from './api-json';
import { CheckoutSessionSchema } from './gen/partnerapi/orders/v1/orders_pb';
import { VenueSchema } from './gen/partnerapi/inventory/v1/inventory_pb';

describe('toApiJson', () => {
  it('uses the API field names, writes int64 ids as numbers and unset optionals as null', () => {
    const venue = create(VenueSchema, {
      object: 'venue',
      id: 42n,
      name: 'The Forum',
      slug: 'the-forum',
      address: { line1: '154 Flinders St', locality: 'Melbourne', state: 'VIC', postalCode: '3000', country: 'AU', formatted: 'x' },
      lat: -37.8,
    });
    expect(toApiJson(VenueSchema, venue)).toEqual({
      object: 'venue',
      id: 42,
      name: 'The Forum',
      slug: 'the-forum',
      address: { line1: '154 Flinders St', line2: null, locality: 'Melbourne', state: 'VIC', postal_code: '3000', country: 'AU', formatted: 'x' },
      lat: -37.8,
      lng: null,
      url: null,
      phone: null,
    });
  });

  it('writes maps as objects and lists of messages as arrays', () => {
    const session = create(CheckoutSessionSchema, {
      object: 'checkout_session',
      metadata: { partner_ref: 'A-1' },
      items: [{ ticketTypeId: 7n, poolId: 3n, name: 'GA', quantity: 2, unitPrice: '10.00', total: '20.00' }],
    });
    const json = toApiJson(CheckoutSessionSchema, session);
    expect(json.id).toBeNull();
    expect(json.customer).toBeNull();
    expect(json.metadata).toEqual({ partner_ref: 'A-1' });
    expect(json.items).toEqual([{ ticket_type_id: 7, pool_id: 3, name: 'GA', quantity: 2, unit_price: '10.00', total: '20.00' }]);
  });
});

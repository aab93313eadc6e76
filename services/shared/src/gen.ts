/** Generated contracts, re-exported under one name per service. */
export * as common from './gen/partnerapi/common/v1/common_pb';
export * as gateway from './gen/partnerapi/gateway/v1/gateway_pb';
export * as inventory from './gen/partnerapi/inventory/v1/inventory_pb';
export * as orders from './gen/partnerapi/orders/v1/orders_pb';
export * as tickets from './gen/partnerapi/tickets/v1/tickets_pb';
export * as webhooks from './gen/partnerapi/webhooks/v1/webhooks_pb';

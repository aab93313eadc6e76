/** Every operation of the API, in the order the OpenAPI document lists them. */
import type { Operation } from '../operation';
import { catalogOperations } from './catalog';
import { checkoutSessionOperations } from './checkout-sessions';
import { compTicketOperations } from './comp-tickets';
import { eventTicketOperations } from './event-tickets';
import { orderOperations } from './orders';
import { rootOperations } from './root';
import { webhookEndpointOperations } from './webhook-endpoints';
import { webhookFeedOperations } from './webhook-feed';

export const API_OPERATIONS: readonly Operation[] = [
  ...rootOperations,
  ...catalogOperations,
  ...checkoutSessionOperations,
  ...orderOperations,
  ...eventTicketOperations,
  ...compTicketOperations,
  ...webhookEndpointOperations,
  ...webhookFeedOperations,
];

/**
 * Operation tags: generated clients group operations into one module per
 * tag, and the document lists each with a description.
 */
export const OPERATION_TAGS = {
  'API keys': 'Who is calling: the organisation, mode and scopes of the key.',
  Catalog: 'Events, their ticket types and live availability, and venues.',
  'Checkout sessions': 'Hold tickets and send the customer to the hosted checkout.',
  'Orders and tickets': 'Completed orders from every sales channel, and their tickets.',
  'Attendees and check-ins': "An event's attendee list and door scans.",
  'Comp tickets': 'Complimentary tickets for a guest list.',
  'Webhook endpoints': 'Receivers of signed event deliveries, and test sends.',
  'Webhook events': 'What each event type delivers to a webhook endpoint.',
  beta: 'Additive and still open to change: the event feed of the last 30 days, replaying what an endpoint missed, and its delivery log.',
} as const;

export type OperationTag = keyof typeof OPERATION_TAGS;

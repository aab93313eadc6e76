/** Signing webhook deliveries: the spec's `Service-Signature` and the Standard Webhooks headers. */
export * from './signature';
export * from './standard-webhooks';
export * from './delivery-headers';

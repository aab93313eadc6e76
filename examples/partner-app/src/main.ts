/** Runs the sample app: PARTNER_API_BASE_URL, PARTNER_API_KEY, WEBHOOK_SECRET (comma-separated for a rotation) and PORT. */
import { createPartnerClient } from '@partner-api/client';
import { createPartnerApp } from './app';

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
};

const client = createPartnerClient({ baseUrl: required('PARTNER_API_BASE_URL'), apiKey: required('PARTNER_API_KEY') });
const webhookSecrets = required('WEBHOOK_SECRET').split(',');
const port = Number(process.env.PORT ?? 4567);
createPartnerApp({ client, webhookSecrets, onEvent: (event) => console.log(`${event.type} ${event.id}`) }).listen(port, '127.0.0.1', () => {
  console.log(`partner app on http://127.0.0.1:${port}: POST /tickets, webhooks at /webhooks`);
});

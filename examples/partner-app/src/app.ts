/**
 * A partner's shop in a dozen lines: it sells a ticket by opening a
 * checkout session and sending the customer to its `checkout_url`, and
 * learns of the sale from the signed `order.completed` webhook, which it
 * verifies before believing.
 */
import express, { type ErrorRequestHandler } from 'express';
import { PartnerApiError, verifyWebhook, WebhookVerificationError, type PartnerClient, type WebhookEvent } from '@partner-api/client';

export interface PartnerAppOptions {
  client: PartnerClient;
  /** The endpoint's secrets (`whsec_…`), current first; read on every delivery, so a rotation can add one. */
  webhookSecrets: readonly string[];
  /** Called with each verified event. */
  onEvent: (event: WebhookEvent) => void;
}

export function createPartnerApp({ client, webhookSecrets, onEvent }: PartnerAppOptions) {
  const app = express();
  app.post('/tickets', express.json(), async (req, res) => {
    const { event_id, ticket_type_id, email } = req.body as { event_id: number | string; ticket_type_id: number; email: string };
    const session = await client.checkoutSessions.create({ event_id, items: [{ ticket_type_id, quantity: 1 }], customer: { email } });
    res.status(201).json({ session_id: session.id, checkout_url: session.checkout_url });
  });
  // The signature covers the raw bytes: read them before any JSON parsing.
  app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
    onEvent(verifyWebhook(req.body as Buffer, req.get('service-signature'), webhookSecrets));
    res.sendStatus(204);
  });
  app.use(((error, _req, res, next) => {
    if (error instanceof WebhookVerificationError) res.status(400).json({ error: error.reason });
    else if (error instanceof PartnerApiError) res.status(error.status).json({ error: error.code, param: error.param });
    else next(error);
  }) as ErrorRequestHandler);
  return app;
}

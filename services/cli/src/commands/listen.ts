/**
 * `partnerctl listen --forward-to <url>`: a partner's developer receives
 * their organisation's events on their own machine, behind NAT, without a
 * public receiver (like `stripe listen`). It holds one long-lived
 * connection to the gateway's event stream under an API key with
 * `webhooks:manage`, prints each event as it arrives, and posts it to the
 * local URL signed with a local secret, with the same headers a real
 * delivery carries, so the partner's verifier works unchanged (D292, D293).
 * A dropped connection is resumed from the last event seen.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { EventSource } from 'eventsource';
import { deliveryHeaders, EVENT_TYPES, newEndpointSecret, WEBHOOK_USER_AGENT } from '@partner-api/shared';

/** How long the local receiver has to answer, as a real delivery allows. */
const FORWARD_TIMEOUT_MS = 10_000;

interface ListenOptions {
  forwardTo: URL;
  apiKey?: string;
  baseUrl: URL;
  secret?: string;
  type?: string;
  printJson?: boolean;
}

const httpUrl = (value: string): URL => {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !['http:', 'https:'].includes(url.protocol)) throw new InvalidArgumentError('expected an http:// or https:// address');
  return url;
};

const eventType = (value: string): string => {
  if (!(EVENT_TYPES as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${EVENT_TYPES.join(', ')}`);
  return value;
};

const stamp = (): string => new Date().toISOString().replace('T', ' ').slice(0, 19);

/** Posts one event to the local receiver, signed with the local secret; prints the answer. */
async function forward(body: string, target: URL, secret: string): Promise<void> {
  const event = JSON.parse(body) as { id: string; type: string };
  console.log(`${stamp()}   --> ${event.type} [${event.id}]`);
  try {
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': WEBHOOK_USER_AGENT, ...deliveryHeaders(event, 1, body, [secret], new Date()) },
      body,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    console.log(`${stamp()}  <--  [${response.status}] POST ${target.href} [${event.id}]`);
  } catch (error) {
    const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    console.log(`${stamp()}  <--  [ERR] POST ${target.href} [${event.id}]: ${cause}`);
  }
}

async function listen(options: ListenOptions): Promise<void> {
  const apiKey = options.apiKey ?? process.env.PARTNER_API_KEY;
  if (!apiKey) throw new Error('an API key with webhooks:manage is needed: --api-key or PARTNER_API_KEY');
  const secret = options.secret ?? newEndpointSecret();
  const streamUrl = new URL('/webhook_events/stream', options.baseUrl);
  if (options.type) streamUrl.searchParams.set('type', options.type);

  let refusal: string | undefined;
  const source = new EventSource(streamUrl, {
    fetch: async (input, init) => {
      const response = await fetch(input, { ...init, headers: { ...init.headers, Authorization: `Bearer ${apiKey}` } });
      // The stream's refusals (a bad key, a missing scope, too many streams) come as the API's error envelope.
      if (response.status !== 200) {
        const text = await response.clone().text();
        refusal = `${response.status}: ${(JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text}`;
      }
      return response;
    },
  });

  // Forwarded one at a time, in the order the stream sent them.
  let forwarding = Promise.resolve();
  source.onopen = () => {
    console.log(`Ready! Forwarding events to ${options.forwardTo.href}. Your local signing secret is ${secret} (^C to quit)`);
  };
  source.onmessage = (message) => {
    if (options.printJson) console.log(message.data);
    forwarding = forwarding.then(() => forward(message.data, options.forwardTo, secret));
  };

  await new Promise<void>((resolve, reject) => {
    source.onerror = (error) => {
      if (source.readyState !== EventSource.CLOSED) {
        console.error(`${stamp()}  connection lost (${error.message ?? 'no answer'}); reconnecting`);
        return;
      }
      reject(new Error(refusal ?? error.message ?? 'the event stream was refused'));
    };
    const stop = () => {
      source.close();
      void forwarding.then(() => resolve());
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

export function registerListen(program: Command): void {
  program
    .command('listen')
    .description("forward your organisation's events to a local receiver, signed with a local secret (no public URL needed)")
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/hooks', httpUrl)
    .option('--api-key <key>', 'an API key with webhooks:manage (default: $PARTNER_API_KEY); a test key receives test events')
    .option('--base-url <url>', 'the API (default: $PARTNER_API_BASE_URL or http://127.0.0.1:4000)', httpUrl, httpUrl(process.env.PARTNER_API_BASE_URL ?? 'http://127.0.0.1:4000'))
    .option('--secret <whsec>', 'sign with this secret instead of a new one (keep your receiver configuration between runs)')
    .option('--type <event type>', 'only this event type', eventType)
    .option('--print-json', 'print each event body as well')
    .action(async (options: ListenOptions) => {
      try {
        await listen(options);
      } catch (error) {
        console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
        process.exitCode = 1;
      }
    });
}

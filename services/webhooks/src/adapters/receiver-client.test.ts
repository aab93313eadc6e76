import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReceiverPolicy } from '../domain/receiver-policy';
import { ReceiverClient } from './receiver-client';

/** A receiver that answers 200 at once, then sends its body a byte every 50 ms, never finishing. */
function tricklingReceiver(): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    const drip = setInterval(() => response.write('.'), 50);
    response.on('close', () => clearInterval(drip));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` })));
}

describe('the receiver client', () => {
  it('stops reading a 2xx whose body keeps coming at its one deadline: a success, its slot free again', async () => {
    const { server, url } = await tricklingReceiver();
    // Each byte comes well inside undici's per-read timeouts: only the deadline over the whole request ends it.
    const client = new ReceiverClient(new ReceiverPolicy(true), 400, 'test');
    try {
      const response = await client.post(url, {}, '{}');
      // The status is the answer (any 2xx is a success); the body is read only to keep the connection, never past the deadline.
      expect(response).toMatchObject({ ok: true, responseStatus: 200, error: null });
      expect(response.durationMs).toBeGreaterThanOrEqual(400);
      expect(response.durationMs).toBeLessThan(2_000);
    } finally {
      await client.close();
      server.closeAllConnections();
      server.close();
    }
  });
});

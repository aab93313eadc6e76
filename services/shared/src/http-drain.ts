/**
 * Closing an HTTP server without resetting a keep-alive client. Node's
 * `server.close()` drops idle keep-alive sockets at once, and a client that
 * picked one of them for its next request in that instant gets a reset (a
 * failed request it cannot tell from a crash). In Kubernetes those sockets
 * are live until the very end: removing a pod from a Service's endpoints
 * stops new connections, not the ones a client already holds. So a drain
 * stops accepting, answers every request from then on (and those in flight)
 * with `Connection: close`, which the client honours by not reusing the
 * socket, and drops the sockets still idle only after `idleGraceMs`.
 */
import type http from 'node:http';
import net from 'node:net';

/** How long a drain leaves idle keep-alive sockets open for a last request before dropping them. */
export const HTTP_DRAIN_IDLE_GRACE_MS = 2_000;

export function gracefulHttpClose(server: http.Server, options: { idleGraceMs?: number } = {}): () => Promise<void> {
  const open = new Set<http.ServerResponse>();
  let draining = false;
  const closeAfter = (response: http.ServerResponse) => {
    if (!response.headersSent) response.setHeader('Connection', 'close');
  };
  // Before the application's own listener, so the header is set before any response is written.
  server.prependListener('request', (_request: http.IncomingMessage, response: http.ServerResponse) => {
    if (draining) return closeAfter(response);
    open.add(response);
    response.once('close', () => open.delete(response));
  });

  return () =>
    new Promise<void>((resolve) => {
      draining = true;
      for (const response of open) closeAfter(response);
      // net.Server's close: stop accepting but leave the open sockets (http.Server's would drop the idle ones now).
      net.Server.prototype.close.call(server, () => resolve());
      const idle = setTimeout(() => server.closeIdleConnections(), options.idleGraceMs ?? HTTP_DRAIN_IDLE_GRACE_MS);
      idle.unref();
    });
}

import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { gracefulHttpClose } from './http-drain';

/** A keep-alive client on one socket: sends a request, reads the whole answer, keeps the socket. */
class OneSocketClient {
  private buffered = '';
  private waiting: ((answer: { status: number; headers: string } | Error) => void) | undefined;
  readonly socket: net.Socket;

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      const end = this.buffered.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(this.buffered)?.[1] ?? NaN);
      if (end >= 0 && this.buffered.length >= end + 4 + length) {
        const head = this.buffered.slice(0, end);
        this.buffered = '';
        this.waiting?.({ status: Number(head.split(' ')[1]), headers: head.toLowerCase() });
      }
    });
    const lost = (error?: Error) => this.waiting?.(error ?? new Error('socket closed'));
    this.socket.on('error', lost);
    this.socket.on('close', () => lost());
  }

  get(): Promise<{ status: number; headers: string }> {
    return new Promise((resolve, reject) => {
      this.waiting = (answer) => (answer instanceof Error ? reject(answer) : resolve(answer));
      this.socket.write('GET / HTTP/1.1\r\nHost: test\r\nConnection: keep-alive\r\n\r\n');
    });
  }
}

async function listening(handler: http.RequestListener): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer({ keepAliveTimeout: 65_000 }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('closing an HTTP server without resetting keep-alive clients', () => {
  it('answers a request on an idle keep-alive socket after the drain began, with Connection: close', async () => {
    const { server, port } = await listening((_request, response) => response.end('ok'));
    const close = gracefulHttpClose(server, { idleGraceMs: 1_000 });
    const client = new OneSocketClient(port);
    expect((await client.get()).headers).not.toContain('connection: close');

    const closed = close();
    await sleep(100);
    // Node's own close() has dropped this socket by now; the client would see a reset.
    const answer = await client.get();
    expect(answer.status).toBe(200);
    expect(answer.headers).toContain('connection: close');
    await closed;
  });

  it('ends a request in flight when the drain begins with Connection: close, and stops accepting', async () => {
    let release: () => void = () => undefined;
    const { server, port } = await listening((_request, response) => {
      release = () => response.end('ok');
    });
    const close = gracefulHttpClose(server, { idleGraceMs: 1_000 });
    const client = new OneSocketClient(port);
    const inFlight = client.get();
    await sleep(50);
    const closed = close();
    release();
    expect((await inFlight).headers).toContain('connection: close');
    await closed;
    await expect(new Promise((resolve, reject) => net.connect(port, '127.0.0.1').on('connect', resolve).on('error', reject))).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  it('drops a socket still idle after the grace, so the close completes', async () => {
    const { server, port } = await listening((_request, response) => response.end('ok'));
    const close = gracefulHttpClose(server, { idleGraceMs: 200 });
    const client = new OneSocketClient(port);
    await client.get();
    const dropped = new Promise((resolve) => client.socket.once('end', resolve));
    const started = Date.now();
    await close();
    await dropped;
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });
});

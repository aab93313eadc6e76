/**
 * A Kafka client whose connect fails half way leaves no connection behind
 * (`connectOrClose`). kafkajs's `connect()` of an idempotent producer opens
 * the seed broker's connection, reads the metadata, connects to a broker
 * and asks it for a producer id; when that request fails (a broker lost
 * mid-connect, as in the broker-kill suite), `connect()` rejects with the
 * seed connection still open and its timers running. The outbox relay
 * connects a new producer after every failed batch, so each such failure
 * kept a connection for good, and one held a test run open after its tests
 * had passed. The fault is injected at the socket, on the real broker: the
 * connection carrying InitProducerId is reset as the request is written.
 */
import net from 'node:net';
import { Kafka, logLevel, type ISocketFactory } from 'kafkajs';
import { connectIdempotentProducer } from '../src/kafka';
import { kafkaBrokers, waitFor } from './support';

/** Kafka's API key for InitProducerId, in the request header after the 4-byte size. */
const INIT_PRODUCER_ID = 22;

/**
 * A client whose connection is reset when it sends an InitProducerId, with
 * every socket it opened. Its seed is the broker under another name than
 * the one it advertises (localhost for 127.0.0.1), so the seed connection
 * stays apart from the broker's own, as it does on a cluster of several.
 */
function clientCutAtInitProducerId(): { kafka: Kafka; sockets: net.Socket[] } {
  const [host, port] = kafkaBrokers()[0]!.split(':');
  const seed = `${host === 'localhost' ? '127.0.0.1' : 'localhost'}:${port}`;
  const sockets: net.Socket[] = [];
  const socketFactory: ISocketFactory = ({ host: to, port: toPort, onConnect }) => {
    const socket = net.connect({ host: to, port: toPort }, onConnect);
    sockets.push(socket);
    const write = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean;
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(chunk) && chunk.length >= 6 && chunk.readInt16BE(4) === INIT_PRODUCER_ID) {
        socket.destroy(Object.assign(new Error('connection reset by the test'), { code: 'ECONNRESET' }));
        return false;
      }
      return write(chunk, ...rest);
    }) as typeof socket.write;
    return socket;
  };
  // One quick retry: the idempotent producer needs at least one, and every attempt is cut the same way.
  const kafka = new Kafka({ clientId: 'connect-cut-test', brokers: [seed], logLevel: logLevel.NOTHING, socketFactory, retry: { retries: 1, initialRetryTime: 50 } });
  return { kafka, sockets };
}

describe('connecting an idempotent producer', () => {
  it('closes the connections it opened when the producer id cannot be had', async () => {
    const { kafka, sockets } = clientCutAtInitProducerId();
    await expect(connectIdempotentProducer(kafka)).rejects.toThrow('connection reset by the test');
    // The seed connection, and the broker's that was cut.
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    await waitFor(() => sockets.every((socket) => socket.destroyed), 5_000, 'every connection closed').catch(() => undefined);
    expect(sockets.filter((socket) => !socket.destroyed).map((socket) => `${socket.localPort} -> ${socket.remotePort}`)).toEqual([]);
  });
});

/**
 * The gateway's node:http server for its Express app, with every request
 * and response object built on the app's own prototypes from the start.
 *
 * Express otherwise swaps the prototype of both objects on every request
 * (`Object.setPrototypeOf` in `app.handle`). V8 then gives each of them a
 * new hidden class after construction, and Node's http code, which has
 * already seen the original shapes, runs polymorphic from there on: on this
 * 2-core box a minimal Express 5 app answered 6,300 requests/s with the swap
 * and 13,500 without it. Constructed with the app's prototypes, the swap is
 * a no-op (same prototype) and Express behaves exactly as before.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

type RequestClass = typeof http.IncomingMessage;
type ResponseClass = typeof http.ServerResponse;

/** `IncomingMessage` / `ServerResponse` constructors whose instances already have the app's prototypes. */
export function expressMessageClasses(app: Express): { IncomingMessage: RequestClass; ServerResponse: ResponseClass } {
  // Node's http classes are plain constructor functions (callable with `call`), so the
  // subclasses can be too; `Reflect.construct` would work for ES classes but is several
  // times slower per request.
  function ExpressRequest(this: http.IncomingMessage, socket: Socket): void {
    (http.IncomingMessage as unknown as (this: unknown, socket: Socket) => void).call(this, socket);
  }
  ExpressRequest.prototype = app.request;
  function ExpressResponse(this: http.ServerResponse, req: http.IncomingMessage, options?: unknown): void {
    (http.ServerResponse as unknown as (this: unknown, req: http.IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  ExpressResponse.prototype = app.response;
  return {
    IncomingMessage: ExpressRequest as unknown as RequestClass,
    ServerResponse: ExpressResponse as unknown as ResponseClass,
  };
}

/** Whether Node's http classes can be called as functions (true through Node 24); ES classes cannot. */
const callable = (constructor: unknown) => !/^class\b/.test(Function.prototype.toString.call(constructor));

export function createHttpServer(app: Express): http.Server {
  const server = callable(http.IncomingMessage) && callable(http.ServerResponse)
    ? http.createServer(expressMessageClasses(app), app)
    : http.createServer(app);
  server.keepAliveTimeout = 65_000;
  return server;
}

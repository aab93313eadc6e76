/**
 * The gateway's node:http server for its Express app, with every request
 * and response object built on the app's own prototypes from the start.
 *
 * Express otherwise swaps the prototype of both objects on every request
 * (`Object.setPrototypeOf` in `app.handle`). V8 then gives each of them a
 * new hidden class after construction, and Node's http code, which has
 * already seen the original shapes, runs polymorphic from there on: on this
 * 2-core box a minimal Express 5 app answered 6,300 requests/s with the swap
 * and 13,500 without it.
 *
 * The classes are real subclasses of Node's (`class … extends`), so V8 sizes
 * their objects from Node's constructors and keeps them in fast mode even
 * when Express and the telemetry preload add properties per request; plain
 * functions calling Node's constructors made objects that went to dictionary
 * mode (slow property access everywhere in Express). Each class's prototype
 * sits in front of the app's and becomes the app's `request` / `response`,
 * so the swap is a no-op (same prototype) and Express behaves exactly as before.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { ApiError, API_VERSION } from '@partner-api/shared';
import { errorEnvelope } from './envelope';
import type { RequestGate } from './middleware/admission-control';
import { newRequestId } from './middleware/request-context';

/** `IncomingMessage` / `ServerResponse` subclasses whose prototypes become the app's `request` / `response`. */
function expressMessageClasses(app: Express): http.ServerOptions {
  class ExpressRequest extends http.IncomingMessage {}
  class ExpressResponse extends http.ServerResponse {}
  Object.setPrototypeOf(ExpressRequest.prototype, app.request);
  Object.setPrototypeOf(ExpressResponse.prototype, app.response);
  app.request = ExpressRequest.prototype as typeof app.request;
  app.response = ExpressResponse.prototype as typeof app.response;
  return { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse as typeof http.ServerResponse };
}

/** What Node's parser refuses before Express sees a request: the status Node would send, in our envelope. */
function parserRefusal(code: string | undefined): ApiError {
  // 400, as the spec's table gives parameter_invalid: it has no code of 431's (D385).
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError('parameter_invalid', 'The request line and headers together exceed 16 KB.', null);
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError('parameter_invalid', 'The request did not arrive in time.', null, 408);
  }
  return new ApiError('parameter_invalid', 'The request is not valid HTTP/1.1 (for example a bare CR or LF in a header).', null);
}

/** Writes `refusal` in the envelope with the usual headers straight to the socket, and closes it. */
function endWithEnvelope(socket: Duplex, refusal: ApiError, docsBaseUrl: string): void {
  const requestId = newRequestId();
  const body = JSON.stringify(errorEnvelope(refusal, requestId, docsBaseUrl));
  socket.end(
    [
      `HTTP/1.1 ${refusal.httpStatus} ${http.STATUS_CODES[refusal.httpStatus]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `Request-Id: ${requestId}`,
      `Service-Version: ${API_VERSION}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/**
 * Node answers malformed requests itself, with an empty body; every
 * non-2xx of the API carries the error envelope and the usual headers (D79).
 */
function answerClientErrors(docsBaseUrl: string) {
  return (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    endWithEnvelope(socket, parserRefusal(error.code), docsBaseUrl);
  };
}

/**
 * Node hands `CONNECT` to a `connect` listener and, with none, closes the
 * connection unanswered. No operation has the method: `404 route_not_found`
 * like any other method an endpoint lacks (D387).
 */
function answerConnect(docsBaseUrl: string) {
  return (req: http.IncomingMessage, socket: Duplex) => {
    endWithEnvelope(socket, new ApiError('route_not_found', `Unrecognised request URL (CONNECT ${req.url ?? ''}).`), docsBaseUrl);
  };
}

/** `gate`: sees every request first and passes those it admits to the app (admission control, D441). */
export function createHttpServer(app: Express, docsBaseUrl: string, gate?: RequestGate): http.Server {
  const server = http.createServer(expressMessageClasses(app), gate ? (req, res) => gate(req, res, () => app(req, res)) : app);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientErrors(docsBaseUrl));
  server.on('connect', answerConnect(docsBaseUrl));
  return server;
}

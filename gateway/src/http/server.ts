// The gateway's HTTP server: node's own, whose request and response objects are born with the
// app's prototypes. Express gives every request and response the app's prototypes
// (Object.setPrototypeOf in app.handle). Done to a live object, that moves it to another hidden
// class, and the property reads of node, Express and the gateway on requests and responses then
// met objects of several shapes, where V8 falls back to its slow lookups: a quarter of a member
// read's CPU was spent in them. Objects that already have those prototypes make Express's call
// change nothing (docs/decisions/0005-fast-hot-path.md).
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * Bounds on receiving one request (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS) and on the
 * connections open at once (HTTP_MAX_CONNECTIONS).
 */
export interface RequestBounds {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
}

/**
 * node checks both bounds only every `connectionsCheckingInterval` (30 s by default), so a
 * connection could outlive its bound by that much; a quarter of the head's bound, at most a
 * second, closes it soon after. The check walks only the connections receiving a request.
 */
const checkingIntervalOf = ({ headersTimeoutMs }: RequestBounds) =>
  Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4)));

export function createGatewayServer(app: Express, bounds: RequestBounds): Server {
  // Constructor functions, not classes: a class's prototype cannot be replaced by the app's.
  // Every argument node passes goes on (the response's options: its high-water mark).
  function GatewayRequest(this: IncomingMessage, ...args: [Socket]) {
    IncomingMessage.call(this, ...args);
  }
  GatewayRequest.prototype = app.request;
  function GatewayResponse(this: ServerResponse, ...args: [IncomingMessage]) {
    ServerResponse.call(this, ...args);
  }
  GatewayResponse.prototype = app.response;
  const server = createServer(
    {
      IncomingMessage: GatewayRequest as unknown as typeof IncomingMessage,
      ServerResponse: GatewayResponse as unknown as typeof ServerResponse,
      // A caller that sends its head or body slowly, or never finishes, holds a connection and
      // its buffers: node answers 408 and closes it (docs/decisions/0007).
      headersTimeout: bounds.headersTimeoutMs,
      requestTimeout: bounds.requestTimeoutMs,
      connectionsCheckingInterval: checkingIntervalOf(bounds),
    },
    app,
  );
  // Each connection holds a socket, its buffers and a file descriptor: past the cap node closes
  // a new one at once, and those already open are served as before (docs/decisions/0007).
  server.maxConnections = bounds.maxConnections;
  return server;
}

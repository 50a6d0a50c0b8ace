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

export function createGatewayServer(app: Express): Server {
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
  return createServer(
    {
      IncomingMessage: GatewayRequest as unknown as typeof IncomingMessage,
      ServerResponse: GatewayResponse as unknown as typeof ServerResponse,
    },
    app,
  );
}

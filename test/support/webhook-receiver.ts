// A partner's webhook endpoint: a real HTTP server that checks every delivery with the Standard
// Webhooks reference package and with svix's verifier, keeps what arrived, and answers as the
// test tells it to.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';

/** A worker's and gateway's settings for deliveries to this receiver: loopback, plain HTTP, fast. */
export const LOCAL_WEBHOOKS = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_DISPATCH_INTERVAL_MS: '50',
};

export interface Received {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  parsed: Record<string, unknown>;
  verified: boolean;
  at: number;
}

export type Answer = (request: Received) => {
  status: number;
  headers?: Record<string, string>;
  /** Held this long before answering (a slow partner). */
  delayMs?: number;
  /** The answer's body; none by default. */
  body?: string;
};

/** Whether both verifiers accept the delivery under the subscription's secret. */
function verify(
  secret: string | undefined,
  body: string,
  headers: Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>,
): boolean {
  if (!secret) return false;
  try {
    new StandardWebhook(secret).verify(body, headers);
    new SvixWebhook(secret).verify(body, {
      'svix-id': headers['webhook-id'],
      'svix-timestamp': headers['webhook-timestamp'],
      'svix-signature': headers['webhook-signature'],
    });
    return true;
  } catch {
    return false;
  }
}

export async function startReceiver(options: { secrets: Map<string, string> }) {
  const received: Received[] = [];
  let answer: Answer = () => ({ status: 204 });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      // Each path is one subscription, whose secret the test registered.
      const secret = options.secrets.get(req.url ?? '');
      let verified: boolean | undefined;
      const entry: Received = {
        path: req.url ?? '',
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        parsed: JSON.parse(body) as Record<string, unknown>,
        // Checked when first read, not as it arrives: the two verifiers' CPU (pure JavaScript
        // HMACs) would otherwise compete with the worker on a burst that a test is timing.
        get verified() {
          verified ??= verify(secret, body, headers);
          return verified;
        },
        at,
      };
      const reply = answer(entry);
      received.push(entry);
      const send = () => res.writeHead(reply.status, reply.headers).end(reply.body);
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    /** The partner's server down: nothing listens on its port (connections are refused). */
    async down() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
    /** Back on the same port. */
    async up() {
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    received,
    answerWith(next: Answer) {
      answer = next;
    },
    async close() {
      if (!server.listening) return;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A partner's endpoint that accepts every connection, reads the request and never answers:
 * each try ends only by the worker's time-out. Counts the requests and the most open at once.
 */
export async function startSilentEndpoint() {
  let requests = 0;
  let open = 0;
  let mostOpen = 0;
  const server = createServer((req: IncomingMessage) => {
    requests += 1;
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    req.resume();
    req.socket.once('close', () => (open -= 1));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/silent`,
    requests: () => requests,
    mostOpen: () => mostOpen,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
